import LiveResults
import NIOConcurrencyHelpers
import PostgresNIO

/// A statement that changes rows of one table, for `PostgresReader.write(_:on:)`: the
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

extension PostgresReader {
    /// Runs `write` on `connection`, which must not be inside a transaction (no BEGIN on it
    /// before: the statement must commit on its own, and a write handed over is taken as
    /// committed), and hands the rows it changed, with their keys as written, to the
    /// change feeds of this reader's controllers over its table before returning: their next
    /// `processPendingChanges()` delivers it. Returns the rows, with the caller's
    /// `returning` columns first (decode them with `row.decode(…)`).
    ///
    /// Nothing is handed over when the statement fails or the connection drops (the log still
    /// brings whatever committed). The statement's errors are
    /// postgres-nio's, as they are (so a caller can tell a lost connection from a refusal). Other processes, and this
    /// one's controllers too, still learn of the commit through the change log; a feed drops
    /// what its log reads already covered, and its log reads skip what it applied here, so
    /// each change is delivered once. Call it from any thread but an event loop's.
    ///
    /// ```swift
    /// let rows = try reader.write(PostgresWrite(table: "team",
    ///     "UPDATE team SET wins = wins + 1 WHERE id = \(id)", returning: "wins"), on: connection)
    /// let wins = try rows.first?.decode(Int32.self)
    /// ```
    public func write(_ write: PostgresWrite, on connection: PostgresConnection) throws -> [PostgresRow] {
        try self.write(write, on: connection, beforeHandOff: {})
    }

    /// `write(_:on:)`, running `beforeHandOff` between the statement's answer and the
    /// hand-over (for tests: a log read that overtakes the hand-over).
    func write(_ write: PostgresWrite, on connection: PostgresConnection, beforeHandOff: () throws -> Void) throws -> [PostgresRow] {
        let feeds = writeListeners.feeds(of: write.table)
        let handOffs = feeds.map { $0.beginWrite() }
        var written: WrittenRows?
        // Ended whatever happens, so the feeds do not hold notifications for it.
        defer {
            for (index, feed) in feeds.enumerated() {
                feed.endWrite(written.map { ($0.xid, $0.rows[index]) }, sentAfter: handOffs[index])
            }
        }
        let query = try WrittenRows.query(write, feeds: feeds)
        let rows = try connection.query(query, logger: logger).wait()
        try beforeHandOff()
        // Committed: a row the feeds cannot read is left to the log, never reported as a failure.
        if !feeds.isEmpty {
            written = try? WrittenRows(rows, feeds: feeds, deletes: write.deletes)
        }
        return Array(rows)
    }
}

/// What a write's RETURNING clause tells the feeds: its transaction, and for each feed the
/// key of every row and whether it matches the feed's predicate.
struct WrittenRows {
    var xid: UInt64
    /// Per feed, in the order given: each row's id and key (nil: deleted or not matching).
    var rows: [[(id: RecordID, key: RowKey?)]]

    /// `write`'s statement with a RETURNING clause of the caller's columns, then ours:
    /// the transaction, each feed's keys and match.
    static func query(_ write: PostgresWrite, feeds: [PostgresChangeFeed]) throws -> PostgresQuery {
        var columns = write.returning.isEmpty ? [] : [write.returning]
        var bindings = write.statement.binds
        if !feeds.isEmpty {
            columns.append("pg_current_xact_id()::text")
            let table = PostgresSQL.identifier(write.table)
            for feed in feeds {
                let (matches, predicate) = try feed.keys.matches(firstParameter: bindings.count + 1)
                predicate?.bind(into: &bindings)
                columns += [feed.keys.selection(from: table), matches]
            }
        }
        guard !columns.isEmpty else { return write.statement }
        return PostgresQuery(unsafeSQL: write.statement.sql + "\nRETURNING " + columns.joined(separator: ", "), binds: bindings)
    }

    /// The rows of `query(_:feeds:)`'s answer as each feed reads them; nil when there is
    /// nothing to hand over (no row).
    init?(_ result: PostgresQueryResult, feeds: [PostgresChangeFeed], deletes: Bool) throws {
        let ours = 1 + feeds.reduce(0) { $0 + $1.keys.keyColumns.count + 1 }
        var xid: UInt64?
        rows = Array(repeating: [], count: feeds.count)
        for row in result {
            var cells = row.makeIterator()
            for _ in 0..<(row.count - ours) { _ = cells.next() }
            guard let xidText = try cells.next()?.decode(String.self), let rowXID = UInt64(xidText),
                  xid == nil || xid == rowXID else { return nil }
            xid = rowXID
            for (index, feed) in feeds.enumerated() {
                let (id, key) = try feed.keys.decode(&cells)
                let matches = try cells.next()?.decode(Bool?.self) == true
                rows[index].append((id, matches && !deletes ? key : nil))
            }
        }
        guard let xid else { return nil }
        self.xid = xid
    }
}

/// The change feeds of a reader's controllers, by table, for `PostgresReader.write`. Holds
/// them weakly: a feed goes when its controller refetches or goes.
final class WriteListeners: Sendable {
    private struct Weak {
        weak var feed: PostgresChangeFeed?
    }

    private let feedsByTable = NIOLockedValueBox<[String: [Weak]]>([:])

    /// Adds `feed`, of the controller over `table`.
    func add(_ feed: PostgresChangeFeed, table: String) {
        feedsByTable.withLockedValue { feeds in
            feeds[table, default: []].removeAll { $0.feed == nil }
            feeds[table, default: []].append(Weak(feed: feed))
        }
    }

    /// The live feeds over `table`.
    func feeds(of table: String) -> [PostgresChangeFeed] {
        feedsByTable.withLockedValue { $0[table]?.compactMap(\.feed) ?? [] }
    }
}
