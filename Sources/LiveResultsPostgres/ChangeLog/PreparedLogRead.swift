import LiveResults
import NIOCore
import PostgresNIO

/// The log read as a statement prepared once per connection, by postgres-nio's
/// `PostgresPreparedStatement` path (its older `prepare(query:)` path labels binary rows as
/// text). Planning the read costs more than running it, and at each commit every controller
/// of the table reads: unprepared, a thousand viewers would make a thousand plans per tap.
///
/// postgres-nio names a prepared statement by its type and takes its SQL from the type, but a
/// feed's SQL depends on its request: the SQL, and a name made from it, are given as
/// task-local values while `run` executes. Feeds of one reader share its connection, so each
/// distinct SQL gets its own name there.
struct PreparedLogRead: PostgresPreparedStatement {
    typealias Row = PostgresRow

    /// The settings of a reader's connection: the read is planned once, generically.
    ///
    /// Left to choose, the server plans the read again at every run: a generic plan cannot
    /// see that few entries follow the cursor, so it looks costlier than a custom one, while
    /// planning this statement costs several times more than running it, on the path of every
    /// commit to every viewer (the README's PostgreSQL benchmark). The setting holds for the
    /// reader's other statements with parameters too: records by id plan alike either way, and
    /// a request's predicate is planned without its values, as a prepared statement's is. Not
    /// `enable_seqscan = off` as well: that made the generic plan slower than a scan.
    static let connectionSettings = [("plan_cache_mode", "force_generic_plan")]

    @TaskLocal static var currentSQL = ""
    static var sql: String { currentSQL }
    static var name: String { "liveresults_log_read_" + String(UInt(bitPattern: currentSQL.hashValue), radix: 16) }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }

    /// Executes `query` (prepared on `connection` at its first run) and collects its rows, in
    /// a task that runs on `executor` (the feed's event loop).
    static func run(_ query: PostgresQuery, on connection: PostgresConnection, executor: EventLoopTaskExecutor,
                    logger: Logger) -> EventLoopFuture<[PostgresRow]> {
        let promise = executor.eventLoop.makePromise(of: [PostgresRow].self)
        Task(executorPreference: executor) {
            do {
                let rows = try await $currentSQL.withValue(query.sql) {
                    var rows: [PostgresRow] = []
                    for try await row in try await connection.execute(PreparedLogRead(bindings: query.binds), logger: logger) {
                        rows.append(row)
                    }
                    return rows
                }
                promise.succeed(rows)
            } catch {
                promise.fail(error)
            }
        }
        return promise.futureResult
    }
}
