import GRDB
import LiveResults

// Commits of other connections, read from the change log: at a poll (`ChangeLogPoller`, or
// `refresh()`), and those a commit of ours finds before its own entries; and the columns
// whose REPLACE conflicts remove rows the update hook does not report.

extension ChangeTracker {
    /// The columns of a table's unique indexes (every column when one holds an expression);
    /// nil when it has none but its primary key.
    static func uniqueColumns(of table: String, in db: Database) throws -> Set<String>? {
        let indexes = try ChangeLog.uniqueIndexes(of: table, in: db)
        guard !indexes.isEmpty else { return nil }
        let parts = indexes.joined()
        if parts.contains(where: { $0.column == nil }) { return Set(try db.columns(in: table).map(\.name)) }
        return Set(parts.compactMap(\.column))
    }

    /// Queues the commits of other connections found in the change log. Cheap when there
    /// are none: one `PRAGMA data_version`. Runs on the writer's queue.
    func pollOtherConnections(_ db: Database) {
        guard let position = logPosition else { return }
        do {
            let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version"))
            guard version != lastDataVersion else { return }
            lastDataVersion = version
            let end = try ChangeLog.position(db)
            if end < position {
                // The log went back: it was dropped and made again. Nothing can be known.
                logPosition = end
                resyncRelatedRows(db)
                enqueue(.reset)
                return
            }
            guard end > position else { return }
            logPosition = end
            if let change = readLog(db, after: position, through: end) { enqueue(change) }
        } catch {
            resyncRelatedRows(db)
            enqueue(.reset)
        }
    }

    /// The change of the rows the log names after `position` through `end`; nil when none.
    func readLog(_ db: Database, after position: Int64, through end: Int64) -> TrackedChange? {
        do {
            // Nil: entries were pruned and the log keeps no summary of them.
            guard let logged = try loggedRowIDs(db, after: position, through: end) else {
                resyncRelatedRows(db)
                return .reset
            }
            if relatedRows != nil {
                return try readRelatedChange(db, ids: logged.ids, relatedIDs: logged.related, origin: .elsewhere, countingMatches: false)
            }
            return logged.ids.isEmpty ? nil : readKeys(db, ids: logged.ids.sorted(), origin: .elsewhere, countingMatches: false)
        } catch {
            resyncRelatedRows(db)
            return .reset
        }
    }

    /// The keys of `ids` (ascending, distinct) now, as a change of `origin`; with
    /// `countingMatches`, also how many rows match the request.
    func readKeys(_ db: Database, ids: [RecordID], origin: ChangeOrigin, countingMatches: Bool) -> TrackedChange {
        do {
            let rows = try query.fetchKeys(db, ids: ids)
            let count = countingMatches ? try query.fetchCount(db) : nil
            return .rows(CommittedChange(rows: rows, position: logPosition, origin: origin, check: count.map(MatchingRowCount.init)))
        } catch {
            return .refetch(touched: Set(ids), origin: origin)
        }
    }
}
