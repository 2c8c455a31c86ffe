import LiveResults
import PostgresNIO

/// Writes whose rows reach the controllers of a `PostgresReader` before they return, as
/// SQLite's controllers learn of their connection's commits (`OwnWrites`).
///
/// The reader reads; the writer writes on a connection of the caller's (a second one, so that
/// a tap never waits behind the controller's reads) and hands what each statement committed
/// to the change feeds of the reader's controllers over that table.
///
/// ```swift
/// let writer = PostgresWriter(handingOverTo: reader)
/// let rows = try writer.write(PostgresWrite(table: "team",
///     "UPDATE team SET wins = wins + 1 WHERE id = \(id)", returning: "wins"), on: connection)
/// let wins = try rows.first?.decode(Int32.self)
/// ```
public struct PostgresWriter: Sendable {
    /// The reader whose controllers' feeds each write tells what it committed.
    public let reader: PostgresReader

    /// A writer that hands its commits to the controllers of `reader`.
    public init(handingOverTo reader: PostgresReader) {
        self.reader = reader
    }

    /// Runs `write` on `connection`, which must not be inside a transaction (no BEGIN on it
    /// before: the statement must commit on its own, and a write handed over is taken as
    /// committed), and hands the rows it changed, with their keys as written, to the
    /// change feeds of the reader's controllers over its table before returning: their next
    /// `processPendingChanges()` delivers it. Returns the rows, with the caller's
    /// `returning` columns first (decode them with `row.decode(…)`).
    ///
    /// Nothing is handed over when the statement fails or the connection drops (the log still
    /// brings whatever committed). The statement's errors are postgres-nio's, as they are (so
    /// a caller can tell a lost connection from a refusal). Other processes, and this one's
    /// controllers too, still learn of the commit through the change log; a feed drops what
    /// its log reads already covered, and its log reads skip what it applied here, so each
    /// change is delivered once. Call it from any thread but an event loop's.
    public func write(_ write: PostgresWrite, on connection: PostgresConnection) throws -> [PostgresRow] {
        try self.write(write, on: connection, beforeHandOff: {})
    }

    /// `write(_:on:)`, running `beforeHandOff` between the statement's answer and the
    /// hand-over (for tests: a log read that overtakes the hand-over).
    func write(_ write: PostgresWrite, on connection: PostgresConnection, beforeHandOff: () throws -> Void) throws -> [PostgresRow] {
        let feeds = reader.ownWrites.listeners(under: write.table)
        let handOffs = feeds.map { $0.beginWrite() }
        var written: WrittenRows?
        // Ended whatever happens, so the feeds do not hold notifications for it.
        defer {
            for (index, feed) in feeds.enumerated() {
                feed.endWrite(written.map { ($0.xid, $0.rows[index], $0.sections[index], $0.records[index], $0.unchanged[index]) },
                              sentAfter: handOffs[index])
            }
        }
        let query = try WrittenRows.query(write, feeds: feeds)
        let answer = connection.query(query, logger: reader.logger)
        // Asked for at once: the connection sends it as soon as the write's Sync is answered.
        let committed = Self.commitConfirmation(on: connection, logger: reader.logger)
        let rows = try answer.waitWithinDeadline()
        try committed.waitWithinDeadline()
        try beforeHandOff()
        // Committed: a row the feeds cannot read is left to the log, never reported as a failure.
        if !feeds.isEmpty {
            written = try? WrittenRows(rows, feeds: feeds, table: write.table, deletes: write.deletes)
        }
        return Array(rows)
    }

    /// What ends once the statement asked for just before it on `connection` has committed,
    /// or fails.
    ///
    /// postgres-nio answers a statement at its CommandComplete, before the Sync that ends its
    /// implicit transaction: the server may still fail the commit, or end the connection
    /// (terminated, restarted) before it, and the statement's rows then never were. The server
    /// answers the next statement only after that Sync, so the empty statement (nothing to
    /// parse or plan) confirms the commit, or fails as the connection does: an outcome the
    /// caller treats as unknown, never as done.
    static func commitConfirmation(on connection: PostgresConnection, logger: Logger) -> EventLoopFuture<Void> {
        connection.query(PostgresQuery(unsafeSQL: ""), logger: logger).map { _ in }
    }
}
