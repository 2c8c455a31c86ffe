import Foundation
import Glibc
import PostgresNIO
import SpawnActions
// A throwaway server is reached through a `PostgresURL`: its users get the type with it.
@_exported import PostgresURLs

/// A throwaway PostgreSQL cluster: made with `initdb` in a folder of its own under /tmp,
/// started with `pg_ctl`, listening on a Unix socket in that folder (and on 127.0.0.1 when
/// asked), and stopped (its folder removed) by `stop()`, at the process's exit, or, should the
/// process crash, by a watchdog shell that waits for it to be gone.
///
/// The cluster has trust authentication, UTF-8, and a default collation that is a real
/// locale (ICU's en-US), so that a query's explicit `COLLATE "C"` matters. It runs as the
/// user postgres when the process is root (the server refuses to run as root).
///
/// Used by the tests' `TestServer` and by `worldcup-bench --store postgres`.
public final class ThrowawayPostgres: Sendable {
    /// Where PostgreSQL 15's programs are (Debian's postgresql package).
    public static let binaries = "/usr/lib/postgresql/15/bin"
    /// The prefix of the clusters' folders under /tmp (short: a Unix socket's path must fit
    /// in 107 bytes).
    static let folderPrefix = "liveresults-pg-"

    /// The cluster's folder: the data directory, the socket, the server's log.
    public let folder: URL
    /// The data directory.
    public let dataDirectory: String
    /// Seconds `initdb` and `pg_ctl start` took.
    public let initSeconds: Double
    public let startSeconds: Double

    /// The server's port: its TCP port on 127.0.0.1 when it listens there, and its socket's number.
    public let port: Int

    /// The directory of the server's Unix socket (the `host` of a libpq URL).
    public var socketDirectory: String { folder.path }
    /// The server's Unix socket.
    public var socketPath: String { folder.appendingPathComponent(".s.PGSQL.\(port)").path }

    /// The configuration of a connection as the superuser postgres to `database`.
    public func configuration(database: String = "postgres") -> PostgresConnection.Configuration {
        .init(unixSocketPath: socketPath, username: "postgres", password: nil, database: database)
    }

    private init(folder: URL, dataDirectory: String, port: Int, initSeconds: Double, startSeconds: Double) {
        self.folder = folder
        self.port = port
        self.dataDirectory = dataDirectory
        self.initSeconds = initSeconds
        self.startSeconds = startSeconds
    }

    /// Makes and starts a cluster. `settings` are more server settings (`name` → value, as
    /// `-c name=value`); `fsync` off makes commits cheap and is fine for data thrown away.
    /// With a `tcpPort`, the server also listens on 127.0.0.1 at that port. `prepare` puts files
    /// the server needs (certificates, a pg_hba.conf) in the cluster's folder before it starts,
    /// so that they go with it, and returns the settings that name them. Stops first the
    /// clusters of processes that died without stopping theirs.
    public static func start(maxConnections: Int = 200, fsync: Bool = false, tcpPort: Int? = nil,
                             settings: [(String, String)] = [],
                             prepare: ((_ folder: URL) throws -> [(String, String)])? = nil) throws -> ThrowawayPostgres {
        guard FileManager.default.isExecutableFile(atPath: "\(binaries)/initdb") else {
            throw ThrowawayPostgresError(.notInstalled, "PostgreSQL 15 is not installed (no \(binaries)/initdb)")
        }
        stopAbandonedClusters()
        let folder = URL(fileURLWithPath: "/tmp/\(folderPrefix)\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try "\(getpid())".write(to: folder.appendingPathComponent("owner.pid"), atomically: true, encoding: .utf8)
        } catch {
            throw ThrowawayPostgresError(.failed, "its folder could not be made (\(error))")
        }
        let data = folder.appendingPathComponent("data").path
        if getuid() == 0, let postgres = getpwnam("postgres") {
            chown(folder.path, postgres.pointee.pw_uid, postgres.pointee.pw_gid)
        }
        startWatchdog(folder: folder, data: data)
        var settings = settings
        do {
            settings += try prepare?(folder) ?? []
        } catch {
            throw ThrowawayPostgresError(.failed, "its files could not be made (\(error))")
        }
        let initStart = Date()
        try run("initdb", ["-D", data, "-A", "trust", "-E", "UTF8", "-U", "postgres",
                           "--locale=C.UTF-8", "--locale-provider=icu", "--icu-locale=en-US"], in: folder)
        let initTime = Date().timeIntervalSince(initStart)
        let startStart = Date()
        let options = ([("listen_addresses", tcpPort == nil ? "''" : "'127.0.0.1'"), ("port", "\(tcpPort ?? 5432)"),
                        ("unix_socket_directories", "'\(folder.path)'"),
                        ("fsync", fsync ? "on" : "off"), ("max_connections", "\(maxConnections)")] + settings)
            .map { "-c \($0.0)=\($0.1)" }.joined(separator: " ")
        try run("pg_ctl", ["-D", data, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60", "-o", options, "start"], in: folder)
        let startTime = Date().timeIntervalSince(startStart)
        let cluster = ThrowawayPostgres(folder: folder, dataDirectory: data, port: tcpPort ?? 5432, initSeconds: initTime, startSeconds: startTime)
        Running.add(cluster)
        return cluster
    }

    /// Stops the cluster and removes its folder (again: nothing).
    public func stop() {
        guard Running.remove(self) else { return }
        _ = try? Self.run("pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "stop"], in: folder)
        try? FileManager.default.removeItem(at: folder)
    }

    /// The clusters this process started and has not stopped, stopped at its exit.
    private enum Running {
        nonisolated(unsafe) static var clusters: [ThrowawayPostgres] = []
        nonisolated(unsafe) static var registered = false
        static let lock = NSLock()

        static func add(_ cluster: ThrowawayPostgres) {
            lock.lock()
            defer { lock.unlock() }
            clusters.append(cluster)
            if !registered {
                registered = true
                atexit { ThrowawayPostgres.Running.stopAll() }
            }
        }

        /// Whether the cluster was running (and is now no longer listed).
        static func remove(_ cluster: ThrowawayPostgres) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard let index = clusters.firstIndex(where: { $0 === cluster }) else { return false }
            clusters.remove(at: index)
            return true
        }

        static func stopAll() {
            lock.lock()
            let all = clusters
            lock.unlock()
            for cluster in all { cluster.stop() }
        }
    }

    /// A shell that stops the cluster and removes its folder once this process is gone: a
    /// crash skips `atexit`. (After a normal exit it finds nothing left to do.)
    private static func startWatchdog(folder: URL, data: String) {
        let pgCtl = (getuid() == 0 ? "/usr/sbin/runuser -u postgres -- " : "") + "\(binaries)/pg_ctl"
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            \(pgCtl) -D '\(data)' -m immediate -w stop
            rm -rf '\(folder.path)'
            """
        _ = try? spawn(["/bin/sh", "-c", script], output: "/dev/null", wait: false)
    }

    /// Stops the clusters of processes that died without stopping theirs (a crash skips
    /// `atexit`), and removes their folders.
    private static func stopAbandonedClusters() {
        let tmp = URL(fileURLWithPath: "/tmp")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: tmp.path) else { return }
        for name in names where name.hasPrefix(folderPrefix) {
            let folder = tmp.appendingPathComponent(name)
            guard let text = try? String(contentsOf: folder.appendingPathComponent("owner.pid"), encoding: .utf8),
                  let owner = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                  kill(owner, 0) != 0, errno == ESRCH else { continue }
            _ = try? run("pg_ctl", ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"], in: folder)
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Runs one of PostgreSQL's programs, as the user postgres when we are root; throws with
    /// the program's last line of output when it fails.
    ///
    /// posix_spawn and waitpid, not Foundation's Process: the server that `pg_ctl start`
    /// leaves running inherits what Process watches to learn that its child ended, so
    /// `waitUntilExit()` would never return.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], in folder: URL) throws -> String {
        try run(path: "\(binaries)/\(program)", arguments, in: folder)
    }

    /// Runs the program at `path` as `run(_:_:in:)` does.
    @discardableResult
    static func run(path: String, _ arguments: [String], in folder: URL) throws -> String {
        let program = URL(fileURLWithPath: path).lastPathComponent
        // env -C: run in the folder, which the user postgres can enter.
        let argv = ["/usr/bin/env", "-C", folder.path] + (getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] : [path]) + arguments
        let outputPath = folder.appendingPathComponent("\(program).out").path
        let status: Int32
        do { status = try spawn(argv, output: outputPath, wait: true) } catch {
            throw ThrowawayPostgresError(.failed, "\(program) did not run (\(error))")
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exitStatus == 0 else {
            var last = text.split(separator: "\n").last.map(String.init) ?? "no output"
            if program == "pg_ctl", let log = try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8),
               let line = log.split(separator: "\n").last {
                last = String(line)
            }
            throw ThrowawayPostgresError(.failed, "\(program) exited with status \(exitStatus) (\(last))")
        }
        return text
    }

    /// Starts `argv` with stdin from /dev/null, stdout and stderr into `output` and no other
    /// descriptor of this process; with `wait`, returns its wait status.
    static func spawn(_ argv: [String], output: String, wait: Bool) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of ours: a server (or the watchdog) that outlives the call and kept a
        // copy of another thread's pipe would hold it open, and whoever reads that pipe to its
        // end (Foundation's Pipe is not close-on-exec) would wait as long as the server lives.
        spawn_actions_close_from(&actions, 3)
        // No signal blocked, or a daemon started here (PgBouncer) might never hear SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        spawn_attributes_unblock_signals(&attributes, 0)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, &cArguments, environ)
        guard spawned == 0 else { throw ThrowawayPostgresError(.failed, String(cString: strerror(spawned))) }
        guard wait else { return 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }
}

/// Why a throwaway cluster could not be started: `reason` is a clause ("initdb exited with
/// status 1 (…)") for the caller's sentence.
public struct ThrowawayPostgresError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable { case notInstalled, failed }
    public let kind: Kind
    public let reason: String
    public var description: String { "The throwaway PostgreSQL server could not start: \(reason)." }
    init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }
}
