import Foundation
import Glibc

/// A throwaway PgBouncer in front of a throwaway cluster, as hosted PostgreSQL's poolers
/// are: transaction pooling (a client's statements reach whichever server session is free
/// at each transaction), few server sessions, trust authentication for any user the
/// cluster knows. It listens on a Unix socket in the cluster's folder only, on its own port
/// number (the socket's name), runs as the user postgres when the process is root (PgBouncer
/// refuses to run as root), and is stopped by `stop()`, by the cluster's `stop()` order of
/// the caller, or, should the process crash, by a watchdog shell.
public final class ThrowawayPgBouncer: Sendable {
    /// Debian's pgbouncer package.
    public static let program = "/usr/sbin/pgbouncer"
    /// The port in the socket's name (`.s.PGSQL.6432`); nothing listens on TCP.
    public let port = 6432
    /// The folder of its socket, configuration, log and pid file: the cluster's.
    public let folder: URL

    /// The directory of its Unix socket (the `host` of a libpq URL, with `port`).
    public var socketDirectory: String { folder.path }

    private var pidFile: String { folder.appendingPathComponent("pgbouncer.pid").path }

    /// Starts PgBouncer for every database of `cluster`, pooling `poolMode` ("transaction",
    /// "session", "statement") over at most `poolSize` server sessions per database and user.
    public static func start(for cluster: ThrowawayPostgres, poolMode: String = "transaction", poolSize: Int = 2) throws -> ThrowawayPgBouncer {
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw ThrowawayPostgresError(.notInstalled, "PgBouncer is not installed (no \(program))")
        }
        let bouncer = ThrowawayPgBouncer(folder: cluster.folder)
        let folder = cluster.folder.path
        let configuration = """
            [databases]
            * = host=\(folder) port=5432

            [pgbouncer]
            listen_addr =
            listen_port = \(bouncer.port)
            unix_socket_dir = \(folder)
            auth_type = trust
            auth_file = \(folder)/pgbouncer-users.txt
            pool_mode = \(poolMode)
            default_pool_size = \(poolSize)
            max_client_conn = 500
            logfile = \(folder)/pgbouncer.log
            pidfile = \(bouncer.pidFile)

            """
        let config = cluster.folder.appendingPathComponent("pgbouncer.ini")
        do {
            try configuration.write(to: config, atomically: true, encoding: .utf8)
            // Trust still wants the user listed; the password is not checked.
            try Data().write(to: cluster.folder.appendingPathComponent("pgbouncer-users.txt"))
        } catch {
            throw ThrowawayPostgresError(.failed, "its configuration could not be written (\(error))")
        }
        try bouncer.allow(users: ["postgres"])
        startWatchdog(pidFile: bouncer.pidFile)
        // -d: it starts, writes its pid file and leaves the foreground.
        try ThrowawayPostgres.run(path: program, ["-d", config.path], in: cluster.folder)
        return bouncer
    }

    private init(folder: URL) {
        self.folder = folder
    }

    /// Lets `users` (roles of the cluster) log in through PgBouncer, which asks nothing of
    /// them (the cluster trusts them too). Takes effect at once (PgBouncer reads the file
    /// at each login with trust).
    public func allow(users: [String]) throws {
        let file = folder.appendingPathComponent("pgbouncer-users.txt")
        let existing = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        let lines = users.map { "\"\($0)\" \"\"\n" }.filter { !existing.contains($0) }
        do {
            try (existing + lines.joined()).write(to: file, atomically: true, encoding: .utf8)
        } catch {
            throw ThrowawayPostgresError(.failed, "its users file could not be written (\(error))")
        }
        if let pid = runningPID { kill(pid, SIGHUP) }
    }

    /// The running PgBouncer's process id, from its pid file.
    private var runningPID: pid_t? {
        (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Stops it (SIGTERM: at once, closing every connection; SIGINT would wait for its
    /// clients) and waits until it is gone.
    public func stop() {
        guard let pid = runningPID else { return }
        kill(pid, SIGTERM)
        for _ in 0..<100 where kill(pid, 0) == 0 { usleep(20_000) }
        unlink(pidFile)
    }

    /// A shell that stops PgBouncer once this process is gone: a crash skips every `stop()`.
    private static func startWatchdog(pidFile: String) {
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            [ -f '\(pidFile)' ] && kill -TERM "$(cat '\(pidFile)')"
            """
        _ = try? ThrowawayPostgres.spawn(["/bin/sh", "-c", script], output: "/dev/null", wait: false)
    }
}
