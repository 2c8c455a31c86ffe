import LiveResults

/// The check of a commit that may have removed rows by REPLACE on a table without a change
/// log: SQLite reports no event for a row REPLACE removes, so only the number of rows that
/// match the request afterwards can show it, against the result the commit is applied to.
struct MatchingRowCount: CommitCheck {
    /// How many rows matched the request right after the commit.
    let expected: Int

    init(_ expected: Int) {
        self.expected = expected
    }

    func holds(for rows: [(id: RecordID, key: RowKey?)], count: Int, contains: (RecordID) -> Bool) -> Bool {
        let counted = rows.reduce(count) { count, row in
            count + (row.key != nil ? 1 : 0) - (contains(row.id) ? 1 : 0)
        }
        return counted == expected
    }
}
