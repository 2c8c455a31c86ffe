import Foundation

extension ThrowawayPostgres {
    /// Restarts the server with the settings it had: with `immediate`, as after a crash
    /// (every connection is cut, and the server recovers from its write-ahead log).
    public func restart(immediate: Bool) throws {
        try Self.run("pg_ctl", ["-D", dataDirectory, "-l", folder.appendingPathComponent("server.log").path,
                               "-m", immediate ? "immediate" : "fast", "-w", "-t", "60", "restart"], in: folder)
    }
}
