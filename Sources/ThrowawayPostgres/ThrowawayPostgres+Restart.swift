import Foundation

extension ThrowawayPostgres {
    /// Restarts the server with the settings it had: with `immediate`, as after a crash
    /// (every connection is cut, and the server recovers from its write-ahead log).
    public func restart(immediate: Bool) throws {
        try Self.run("pg_ctl", ["-D", dataDirectory, "-l", folder.appendingPathComponent("server.log").path,
                               "-m", immediate ? "immediate" : "fast", "-w", "-t", "60", "restart"], in: folder)
    }
}

extension ThrowawayPostgres {
    /// Runs `sql` with psql as the superuser on the server's Unix socket; returns its unaligned
    /// output, or throws with psql's last line.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try Self.run("psql", ["-h", socketDirectory, "-p", "\(port)", "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1",
                              "-tAc", sql], in: folder)
    }
}
