import ThrowawayPostgres

/// The PostgreSQL server a benchmark runs on: the one `--postgres-url` names, or a throwaway
/// cluster started here (stop it with `stop()`).
struct BenchServer {
    /// The server's database `postgres`, where benchmarks create and drop their own.
    let url: PostgresURL
    /// The throwaway cluster, when one was started.
    let cluster: ThrowawayPostgres?

    /// The server `postgresURL` names, or a throwaway one accepting `maxConnections`.
    static func open(postgresURL: String?, maxConnections: Int) throws -> BenchServer {
        if let postgresURL, let url = PostgresURL(string: postgresURL) {
            return BenchServer(url: url, cluster: nil)
        }
        Progress.say("Starting a throwaway PostgreSQL server (max_connections \(maxConnections))…")
        // pg_stat_statements counts the statements the fan-out's viewers send per tap.
        let started = try ThrowawayPostgres.start(maxConnections: maxConnections, settings: [("shared_preload_libraries", "pg_stat_statements")])
        Progress.say("PostgreSQL server: initdb \(Report.format(started.initSeconds, decimals: 2)) s, start \(Report.format(started.startSeconds, decimals: 2)) s, in \(started.folder.path) (fsync off)")
        return BenchServer(url: PostgresURL(user: "postgres", socketDirectory: started.socketDirectory, database: "postgres"), cluster: started)
    }

    /// Stops the throwaway cluster, if any.
    func stop() {
        cluster?.stop()
    }
}
