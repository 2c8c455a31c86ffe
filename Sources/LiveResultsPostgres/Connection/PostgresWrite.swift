import LiveResults
import PostgresNIO

/// A statement that changes rows of one table, for `PostgresWriter.write(_:on:)`: the
/// controllers of this process over that table learn what it committed from its own answer,
/// as SQLite's controllers learn of their process's commits, without waiting for the change
/// log's notification and read.
///
/// `statement` is an INSERT, UPDATE or DELETE of `table` without a RETURNING clause (a
/// leading WITH is fine, data-modifying or not); `write` adds one that returns `returning`
/// (the caller's columns, first in each row) and, after them, what the controllers need.
/// Columns of `table` are named by its name in that clause, the predicate's bare, so do not
/// alias the table, and let no other table of the statement have columns of those names.
public struct PostgresWrite: Sendable {
    /// The table the statement changes, as the controllers name it.
    public var table: String
    /// The statement, without RETURNING.
    public var statement: PostgresQuery
    /// The caller's RETURNING list ("" for none).
    public var returning: String
    /// Whether the statement is a DELETE: the rows it returns are gone.
    public var deletes: Bool

    /// A write of `statement` on `table`, returning `returning` (a RETURNING list, such as
    /// `"*"` or `"id, wins"`; "" for nothing); `deletes` when it is a DELETE.
    public init(table: String, _ statement: PostgresQuery, returning: String = "", deletes: Bool = false) {
        self.table = table
        self.statement = statement
        self.returning = returning
        self.deletes = deletes
    }
}

/// What a write's RETURNING clause tells the feeds: its transaction, and for each feed the
/// key of every row and whether it matches the feed's predicate.
struct WrittenRows {
    var xid: UInt64
    /// Per feed, in the order given: each row's id and key (nil: deleted or not matching).
    var rows: [[(id: RecordID, key: RowKey?)]]
    /// Per feed whose sections come through a related table: the related rows of the rows
    /// written, whose sections they are in; or, for a write of that related table, the related
    /// rows it wrote (and no row). Empty for other feeds.
    var sections: [[(id: ColumnValue, row: SectionRow?)]]
    /// Per feed, in the order given: each row written and kept (not deleted), whole, for the
    /// controller's record cache (drawing the row reads nothing).
    var records: [[RecordID: RecordColumns]]
    /// Per feed, in the order given: the rows kept that the statement wrote with the values
    /// they had (`CommittedChange.unchangedRows`).
    var unchanged: [Set<RecordID>]

    /// `write`'s statement with a RETURNING clause of the caller's columns, then ours:
    /// the transaction, whether the row was written as it was, each feed's keys and match.
    static func query(_ write: PostgresWrite, feeds: [PostgresChangeFeed]) throws -> PostgresQuery {
        var columns = write.returning.isEmpty ? [] : [write.returning]
        var bindings = write.statement.binds
        if !feeds.isEmpty {
            // Logs the statement's no-op updates too (see the change log's row trigger).
            columns.append("set_config(\(PostgresSQL.literal(PostgresChangeLog.handedOverSetting)), 'on', true)")
            columns.append("pg_current_xact_id()::text")
            let table = PostgresSQL.identifier(write.table)
            columns.append(unchangedSelection(write, feeds: feeds))
            for feed in feeds {
                if let related = feed.relatedWritten(by: write) {
                    // A write of the related table: its rows are sections, read as they are.
                    columns.append(related.selection(from: table))
                    continue
                }
                let (matches, predicate) = try feed.keys.matches(firstParameter: bindings.count + 1)
                predicate?.bind(into: &bindings)
                columns += [feed.keys.selection(from: table), matches] + (feed.keys.related?.returning(from: table) ?? [])
                if !feed.keys.recordCells.isEmpty { columns.append(feed.keys.recordSelection(from: table)) }
            }
        }
        guard !columns.isEmpty else { return write.statement }
        return PostgresQuery(unsafeSQL: write.statement.sql + "\nRETURNING " + columns.joined(separator: ", "), binds: bindings)
    }

    /// Whether the statement wrote the row with the values it had: the row as the statement's
    /// snapshot holds it (a subquery of RETURNING does not see the statement's own changes)
    /// has the same bytes as the row written (`*=`, as the change log's trigger compares), and
    /// was replaced by this transaction itself (its `xmax`: a row a concurrent commit changed
    /// after the snapshot, whose newer version the statement updated, or that another
    /// transaction had locked, counts as changed). Null for a row the statement inserted;
    /// false for a DELETE.
    private static func unchangedSelection(_ write: PostgresWrite, feeds: [PostgresChangeFeed]) -> String {
        let rowFeed = feeds.first { $0.relatedWritten(by: write) == nil }
        guard !write.deletes, let id = rowFeed?.keys.keyColumns.first else { return "false" }
        let table = PostgresSQL.identifier(write.table)
        // The row written as a value of the table's type: the bare name could be a column of
        // another table of the statement (`FROM noted`, whose column is `item`).
        return "(SELECT liveresults_old *= ROW(\(table).*)::\(table) AND liveresults_old.xmax = pg_current_xact_id()::xid"
            + " FROM \(table) liveresults_old WHERE liveresults_old.\(id) = \(table).\(id))"
    }

    /// The rows of `query(_:feeds:)`'s answer as each feed reads them; nil when there is
    /// nothing to hand over (no row).
    init?(_ result: PostgresQueryResult, feeds: [PostgresChangeFeed], table: String, deletes: Bool) throws {
        let related = feeds.map { $0.relatedWritten(byTable: table) }
        let ours = 3 + zip(feeds, related).reduce(0) { count, pair in
            count + (pair.1?.cellCount ?? (pair.0.keys.keyColumns.count + 1 + (pair.0.keys.related?.cellCount ?? 0) + pair.0.keys.recordCells.count))
        }
        var xid: UInt64?
        rows = Array(repeating: [], count: feeds.count)
        sections = Array(repeating: [], count: feeds.count)
        records = Array(repeating: [:], count: feeds.count)
        unchanged = Array(repeating: [], count: feeds.count)
        for row in result {
            var cells = row.makeIterator()
            for _ in 0...(row.count - ours) { _ = cells.next() } // the caller's columns, then the no-op mark
            guard let xidText = try cells.next()?.decode(String.self), let rowXID = UInt64(xidText),
                  xid == nil || xid == rowXID else { return nil }
            xid = rowXID
            let rowUnchanged = try cells.next()?.decode(Bool?.self) == true
            for (index, feed) in feeds.enumerated() {
                if let written = related[index] {
                    // A related row: a section changed (nil: deleted), and no row of the feed's table.
                    if let section = try written.decode(&cells) { sections[index].append((section.key, deletes ? nil : section.row)) }
                    continue
                }
                let (id, key) = try feed.keys.decode(&cells)
                var matches = try cells.next()?.decode(Bool?.self) == true
                if let related = feed.keys.related {
                    // Joined: a row is in the result only with its related row, whose section it brings.
                    let section = try related.decode(&cells)
                    matches = matches && section != nil
                    if matches, !deletes, let section, !sections[index].contains(where: { $0.id == section.key }) {
                        sections[index].append((section.key, section.row))
                    }
                }
                let record = try feed.keys.decodeRecord(&cells)
                if matches && !deletes {
                    records[index][id] = record
                    if rowUnchanged { unchanged[index].insert(id) }
                }
                rows[index].append((id, matches && !deletes ? key : nil))
            }
        }
        guard let xid else { return nil }
        self.xid = xid
    }
}
