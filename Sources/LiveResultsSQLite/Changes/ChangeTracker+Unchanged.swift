import GRDB
import LiveResults

// Updates of this connection that write the values rows already have (`SET c = c`), on a
// table without a change log. The update hook names every row an UPDATE wrote, changed or
// not; the log's trigger skips the unchanged ones, but without a log nothing does. So the
// tracker has the connection tell it of them: temporary triggers (the connection's own, the
// file is not changed) compare each row before and after an update of the table
// (`UnchangedRowCheck`), and for a row left as it was insert its rowid into a temporary table,
// which the trackers of the table observe (and empty it again). The commit then marks the rows
// whose every event was such an update (`CommittedChange.unchangedRows`), and the controller
// reports them only if their key moved (rule 6).

extension ChangeTracker {
    /// Has `db`'s connection tell the trackers of this table on it of each UPDATE that leaves
    /// a row as it was. Leaves things as they were when the connection refuses (a read-only
    /// one, a table without rowids): such updates are then reported, as before.
    func watchUnchangedUpdates(_ db: Database) {
        let table = query.tableName
        let target = "main." + table.quotedDatabaseIdentifier
        let name = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        let rowsTable = "liveresults_unchanged_rows_" + table
        let before = ("liveresults_before_update_" + table).quotedDatabaseIdentifier
        let after = ("liveresults_unchanged_" + table).quotedDatabaseIdentifier
        UnchangedRowCheck.register(on: db)
        do {
            try db.execute(sql: """
                CREATE TEMP TABLE IF NOT EXISTS \(rowsTable.quotedDatabaseIdentifier)(unused);
                DROP TRIGGER IF EXISTS temp.\(before);
                DROP TRIGGER IF EXISTS temp.\(after);
                CREATE TEMP TRIGGER \(before) BEFORE UPDATE ON \(target) BEGIN
                    SELECT \(UnchangedRowCheck.keepFunction)(\(name), OLD.rowid);
                END;
                CREATE TEMP TRIGGER \(after) AFTER UPDATE ON \(target)
                WHEN \(UnchangedRowCheck.isUnchangedFunction)(\(name), OLD.rowid, NEW.rowid) BEGIN
                    INSERT INTO \(rowsTable.quotedDatabaseIdentifier)(rowid) VALUES (NEW.rowid);
                    DELETE FROM \(rowsTable.quotedDatabaseIdentifier);
                END
                """)
            unchangedRowsTable = rowsTable
        } catch {}
    }

    /// The rows among `touched` (the transaction's events, repeats kept) whose every event
    /// was an update that left them as they were (`unchanged`, one entry per such update).
    static func unchangedRows(touched: [RecordID], unchanged: [RecordID]) -> Set<RecordID> {
        guard !unchanged.isEmpty else { return [] }
        var events: [RecordID: Int] = [:]
        for id in touched { events[id, default: 0] += 1 }
        for id in unchanged { events[id, default: 0] -= 1 }
        return Set(events.compactMap { $0.value == 0 ? $0.key : nil })
    }

    /// `change` with the rows in `unchanged` marked as written with the values they had.
    static func marking(_ change: TrackedChange?, unchanged: Set<RecordID>) -> TrackedChange? {
        guard !unchanged.isEmpty, case .rows(var commit)? = change else { return change }
        commit.unchangedRows.formUnion(unchanged.intersection(commit.rows.map(\.id)))
        return .rows(commit)
    }

    /// `ids` ascending, each once.
    static func sortedDistinct(_ ids: [RecordID]) -> [RecordID] {
        guard ids.count > 1 else { return ids }
        var sorted = ids.sorted()
        var kept = 1
        for next in 1..<sorted.count where sorted[next] != sorted[kept - 1] {
            sorted[kept] = sorted[next]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        return sorted
    }
}
