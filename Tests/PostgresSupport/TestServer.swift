import Foundation
import Glibc
import PostgresNIO

/// The PostgreSQL server of the tests: the one `PG_TEST_URL` names (a postgres:// URL), or a
/// throwaway cluster started at first use, shared by every suite of the test process, and
/// stopped (its folder removed) when the process exits.
///
/// The throwaway cluster is made with `initdb` (trust authentication, UTF-8) whose default
/// collation is a real locale (ICU's en-US), so that tests of ordering show that a query's
/// explicit `COLLATE "C"` matters. It listens on a Unix socket in its folder only.
public enum TestServer {
    /// Where PostgreSQL 15's programs are (Debian's postgresql package).
    static let binaries = "/usr/lib/postgresql/15/bin"

    /// The server's configuration, for the database `postgres`. Fails with one sentence
    /// saying why when no server can be had.
    public static func configuration() throws -> PostgresConnection.Configuration {
        try shared.get()
    }

    /// A connection to a fresh database of its own (so suites and tests do not see each
    /// other's tables and log entries) and a way to drop it.
    public static func freshDatabase() async throws -> (configuration: PostgresConnection.Configuration, drop: @Sendable () async -> Void) {
        let base = try configuration()
        let name = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin: PostgresConnection
        do {
            admin = try await connect(base)
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        } catch {
            let reason = String(reflecting: error).split(whereSeparator: \.isNewline).joined(separator: " ")
            throw TestServerError("The PostgreSQL test server could not make a database: \(reason).")
        }
        try? await admin.close()
        var configuration = base
        configuration.database = name
        return (configuration, {
            guard let admin = try? await connect(base) else { return }
            _ = try? await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
            try? await admin.close()
        })
    }

    /// A new connection.
    public static func connect(_ configuration: PostgresConnection.Configuration) async throws -> PostgresConnection {
        try await PostgresConnection.connect(configuration: configuration, id: nextID.add(1), logger: logger)
    }

    public static let logger = Logger(label: "PostgresSupport")
    private static let nextID = Counter()

    // MARK: - Starting and stopping

    /// Started once, at first use (Swift initialises a static lazily, exactly once).
    private static let shared: Result<PostgresConnection.Configuration, any Error> = Result {
        if let url = ProcessInfo.processInfo.environment["PG_TEST_URL"], !url.isEmpty {
            return try configuration(url: url)
        }
        return try startCluster()
    }

    /// A configuration from a postgres:// URL (user, password, host or `?host=/socket/dir`,
    /// port, database).
    static func configuration(url text: String) throws -> PostgresConnection.Configuration {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? "") else {
            throw TestServerError("PG_TEST_URL is not a postgres:// URL: “\(text)”.")
        }
        let user = url.user ?? "postgres"
        let database = url.path.count > 1 ? String(url.path.dropFirst()) : "postgres"
        if let socketFolder = url.queryItems?.first(where: { $0.name == "host" })?.value {
            let port = url.port ?? 5432
            return .init(unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: url.password, database: database)
        }
        return .init(host: url.host ?? "localhost", port: url.port ?? 5432, username: user, password: url.password, database: database, tls: .disable)
    }

    /// The cluster this process started, for `atexit`.
    nonisolated(unsafe) private static var running: (folder: URL, data: String)?

    private static func startCluster() throws -> PostgresConnection.Configuration {
        guard FileManager.default.isExecutableFile(atPath: "\(binaries)/initdb") else {
            throw TestServerError("PostgreSQL 15 is not installed (no \(binaries)/initdb): run `make test`, which installs it, or set PG_TEST_URL.")
        }
        stopAbandonedClusters()
        // Short: a Unix socket's path must fit in 107 bytes.
        let folder = URL(fileURLWithPath: "/tmp/liveresults-pg-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try "\(getpid())".write(to: folder.appendingPathComponent("owner.pid"), atomically: true, encoding: .utf8)
        } catch {
            throw TestServerError("The PostgreSQL test server could not start: its folder could not be made (\(error)).")
        }
        let data = folder.appendingPathComponent("data").path
        if getuid() == 0, let postgres = getpwnam("postgres") {
            chown(folder.path, postgres.pointee.pw_uid, postgres.pointee.pw_gid)
        }
        startWatchdog(folder: folder, data: data)
        let initStart = Date()
        try run("initdb", ["-D", data, "-A", "trust", "-E", "UTF8", "-U", "postgres",
                           "--locale=C.UTF-8", "--locale-provider=icu", "--icu-locale=en-US"], in: folder)
        let initTime = Date().timeIntervalSince(initStart)
        let startStart = Date()
        let options = "-c listen_addresses='' -c unix_socket_directories='\(folder.path)' -c fsync=off -c max_connections=200"
        try run("pg_ctl", ["-D", data, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "60", "-o", options, "start"], in: folder)
        let startTime = Date().timeIntervalSince(startStart)
        running = (folder, data)
        atexit { TestServer.stopRunningCluster() }
        FileHandle.standardError.write(Data(String(format: "PostgreSQL test server: initdb %.2f s, start %.2f s, in %@\n",
                                                   initTime, startTime, folder.path).utf8))
        return .init(unixSocketPath: folder.appendingPathComponent(".s.PGSQL.5432").path, username: "postgres", password: nil, database: "postgres")
    }

    /// Stops the cluster this process started and removes its folder.
    static func stopRunningCluster() {
        guard let (folder, data) = running else { return }
        running = nil
        _ = try? run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"], in: folder)
        try? FileManager.default.removeItem(at: folder)
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

    /// Stops the clusters of test processes that died without stopping theirs (a crash
    /// skips `atexit`), and removes their folders.
    private static func stopAbandonedClusters() {
        let tmp = URL(fileURLWithPath: "/tmp")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: tmp.path) else { return }
        for name in names where name.hasPrefix("liveresults-pg-") {
            let folder = tmp.appendingPathComponent(name)
            guard let text = try? String(contentsOf: folder.appendingPathComponent("owner.pid"), encoding: .utf8),
                  let owner = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                  kill(owner, 0) != 0, errno == ESRCH else { continue }
            _ = try? run("pg_ctl", ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"], in: folder)
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Runs one of PostgreSQL's programs, as the user postgres when we are root (the server
    /// refuses to run as root); throws with the program's last line of output when it fails.
    ///
    /// posix_spawn and waitpid, not Foundation's Process: the server that `pg_ctl start`
    /// leaves running inherits what Process watches to learn that its child ended, so
    /// `waitUntilExit()` would never return.
    @discardableResult
    private static func run(_ program: String, _ arguments: [String], in folder: URL) throws -> String {
        let path = "\(binaries)/\(program)"
        // env -C: run in the folder, which the user postgres can enter.
        let argv = ["/usr/bin/env", "-C", folder.path] + (getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] : [path]) + arguments
        let outputPath = folder.appendingPathComponent("\(program).out").path
        let status: Int32
        do { status = try spawn(argv, output: outputPath, wait: true) } catch {
            throw TestServerError("The PostgreSQL test server could not start: \(program) did not run (\(error)).")
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
            throw TestServerError("The PostgreSQL test server could not start: \(program) exited with status \(exitStatus) (\(last)).")
        }
        return text
    }

    /// Starts `argv` with stdin from /dev/null and stdout and stderr into `output`; with
    /// `wait`, returns its wait status.
    private static func spawn(_ argv: [String], output: String, wait: Bool) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard spawned == 0 else { throw TestServerError(String(cString: strerror(spawned))) }
        guard wait else { return 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }
}

/// Why the test server could not be had, in one sentence.
public struct TestServerError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A thread-safe counter for connection ids.
final class Counter: @unchecked Sendable { // A lock guards `value`.
    private let lock = NSLock()
    private var value = 0
    func add(_ amount: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += amount
        return value
    }
}
