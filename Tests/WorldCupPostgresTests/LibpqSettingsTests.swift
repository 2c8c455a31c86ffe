import Foundation
@testable import PostgresURLs
import Testing
import TestSupport
import ThrowawayPostgres
import LiveResultsPostgres
import WorldCup
@testable import WorldCupPostgres

/// libpq's rules for sslmode and its files, its variables, and the password file's format,
/// as `PostgresLocation` reads them (no server: `TLSCommandLineTests` connects).
struct LibpqSettingsTests {
    /// A HOME with `files` (relative path → contents) in it, for one test.
    private func home(_ files: [String: String] = [:]) throws -> TemporaryFolder {
        let folder = try TemporaryFolder(prefix: "worldcup-libpq-home")
        for (path, contents) in files {
            let file = folder.file(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try contents.write(to: file, atomically: true, encoding: .utf8)
            chmod(file.path, 0o600)
        }
        return folder
    }

    private func location(_ url: String, home: TemporaryFolder, _ environment: [String: String] = [:]) throws -> PostgresLocation {
        try PostgresLocation(url: url, environment: environment.merging(["HOME": home.url.path]) { old, _ in old })
    }

    @Test func theModesAsLibpqDefinesThem() throws {
        let empty = try home()
        defer { try? FileManager.default.removeItem(at: empty.url) }
        // prefer by default; allow behaves as prefer; neither verifies.
        #expect(try location("postgres://h/cup", home: empty).tls == PostgresTLS(mode: .prefer, verification: .none, roots: nil))
        #expect(try location("postgres://h/cup?sslmode=allow", home: empty).tls.verification == .none)
        #expect(try location("postgres://h/cup?sslmode=disable", home: empty).tls == .disabled)
        // require without root certificates encrypts without verifying: never turned into verify-full.
        #expect(try location("postgres://h/cup?sslmode=require", home: empty).tls == PostgresTLS(mode: .require, verification: .none, roots: nil))
        // A root file given: require verifies the chain, verify-full the name too.
        let ca = empty.file("ca.crt")
        try "".write(to: ca, atomically: true, encoding: .utf8)
        #expect(try location("postgres://h/cup?sslmode=require&sslrootcert=\(ca.path)", home: empty).tls.verification == .chain)
        #expect(try location("postgres://h/cup?sslmode=verify-ca&sslrootcert=\(ca.path)", home: empty).tls.verification == .chain)
        #expect(try location("postgres://h/cup?sslmode=verify-full&sslrootcert=\(ca.path)", home: empty).tls
                == PostgresTLS(mode: .verifyFull, verification: .chainAndHostName, roots: .file(ca.path)))
        // sslrootcert=system: the system's store, and verify-full when no mode is given.
        #expect(try location("postgres://h/cup?sslrootcert=system", home: empty).tls
                == PostgresTLS(mode: .verifyFull, verification: .chainAndHostName, roots: .system))
        #expect(throws: WorldCupError.self) { try location("postgres://h/cup?sslrootcert=system&sslmode=verify-ca", home: empty) }
        // On a Unix socket there is no TLS, and no TLS file is read, as in libpq.
        #expect(try location("postgres:///cup?host=/tmp&sslmode=verify-full", home: empty).tls == .disabled)
        #expect(throws: WorldCupError.self) { try location("postgres:///cup?host=/tmp&sslmode=tight", home: empty) }
    }

    @Test func aRootCertificateInHomeMakesRequireVerifyTheChain() throws {
        let folder = try home([".postgresql/root.crt": ""])
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let root = folder.file(".postgresql/root.crt").path
        #expect(try location("postgres://h/cup?sslmode=require", home: folder).tls == PostgresTLS(mode: .require, verification: .chain, roots: .file(root)))
        #expect(try location("postgres://h/cup?sslmode=verify-full", home: folder).tls.roots == .file(root))
        // prefer still verifies nothing: postgres-nio cannot fall back to a connection in clear as libpq does.
        #expect(try location("postgres://h/cup", home: folder).tls.verification == .none)
    }

    @Test func theVariablesFillInWhatTheURLLeavesOut() throws {
        let folder = try home(["ca.crt": "", "other.crt": ""])
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let environment = ["PGSSLMODE": "verify-ca", "PGSSLROOTCERT": folder.file("ca.crt").path, "PGAPPNAME": "board", "PGCONNECT_TIMEOUT": "1"]
        let fromVariables = try location("postgres://h/cup", home: folder, environment)
        #expect(fromVariables.tls == PostgresTLS(mode: .verifyCA, verification: .chain, roots: .file(folder.file("ca.crt").path)))
        #expect(fromVariables.applicationName == "board")
        #expect(fromVariables.connectTimeoutSeconds == 2) // libpq reads 1 as 2
        // The URL wins over a variable.
        let fromURL = try location("postgres://h/cup?sslrootcert=\(folder.file("other.crt").path)&connect_timeout=0&application_name=x",
                                   home: folder, environment)
        #expect(fromURL.tls.roots == .file(folder.file("other.crt").path))
        #expect(fromURL.connectTimeoutSeconds == 0)
        #expect(fromURL.applicationName == "x")
        #expect(throws: WorldCupError("The sslmode “on” (PGSSLMODE) is not one libpq knows: use disable, allow, prefer, require, verify-ca or verify-full.")) {
            try location("postgres://h/cup", home: folder, ["PGSSLMODE": "on"])
        }
        #expect(try location("postgres://h/cup?channel_binding=disable", home: folder).url.host == "h")
    }

    @Test func sslnegotiationAsLibpq17ReadsIt() throws {
        let folder = try home([:])
        defer { try? FileManager.default.removeItem(at: folder.url) }
        // postgres, libpq's default, is what the driver does: asking for TLS first.
        #expect(try location("postgres://h/cup?sslnegotiation=postgres&sslmode=require", home: folder).tls.mode == .require)
        #expect(throws: WorldCupError("Direct TLS (PGSSLNEGOTIATION=direct) is not something worldcup's PostgreSQL driver (postgres-nio) can do: leave it out, and the connection asks the server for TLS first, as sslnegotiation=postgres does.")) {
            try location("postgres://h/cup", home: folder, ["PGSSLNEGOTIATION": "direct"])
        }
        #expect(throws: WorldCupError("The TLS negotiation “tls” (sslnegotiation) is not one libpq knows: use postgres or direct.")) {
            try location("postgres://h/cup?sslnegotiation=tls", home: folder)
        }
    }

    @Test func thePasswordFileAsLibpqReadsIt() throws {
        let folder = try home([".pgpass": """
            # host:port:database:user:password
            other:5432:*:ana:not-this
            db.example:5433:cup:ana:first
            db.example:*:*:ana:p\\:a\\\\ss
            localhost:5432:cup:bo:on-the-socket
            /tmp/pg:5432:*:bo:in-tmp
            *:*:*:*:anyone
            """])
        defer { try? FileManager.default.removeItem(at: folder.url) }
        #expect(try location("postgres://ana@db.example:5433/cup", home: folder).url.password == "first")
        #expect(try location("postgres://ana@db.example:5433/other", home: folder).url.password == "p:a\\ss")
        #expect(try location("postgres://zoe@elsewhere/x", home: folder).url.password == "anyone")
        // A password given wins; the file is not read.
        #expect(try location("postgres://ana:given@db.example:5433/cup", home: folder).url.password == "given")
        #expect(try location("postgres://ana@db.example:5433/cup", home: folder, ["PGPASSWORD": "env"]).url.password == "env")
        // Sockets: the default directory is “localhost”, another is its path.
        #expect(try location("postgres://bo@/cup", home: folder).url.password == "on-the-socket")
        #expect(try location("postgres://bo@/cup?host=/tmp/pg", home: folder).url.password == "in-tmp")
        // PGPASSFILE names another file; a missing one is no error.
        let elsewhere = try location("postgres://ana@db.example:5433/cup", home: folder, ["PGPASSFILE": folder.file("none").path])
        #expect(elsewhere.url.password == nil && elsewhere.warnings.isEmpty)
        // The passfile parameter names it too, and wins over PGPASSFILE, as in libpq.
        let named = try location("postgres://ana@db.example:5433/cup?passfile=\(folder.file(".pgpass").path)", home: folder,
                                 ["PGPASSFILE": folder.file("none").path, "HOME": "/nonexistent"])
        #expect(named.url.password == "first")
        // Readable by others: ignored, with a warning.
        chmod(folder.file(".pgpass").path, 0o640)
        let loose = try location("postgres://ana@db.example:5433/cup", home: folder)
        #expect(loose.url.password == nil)
        #expect(loose.warnings == ["The password file “\(folder.file(".pgpass").path)” can be read by others, so it was ignored: run chmod 600 \(WorldCupError.shellQuoted(folder.file(".pgpass").path))."])
    }

    @Test func theFieldsOfAPasswordFileLine() {
        #expect(PasswordFile.fields(of: "h:5432:d:u:p").map(\.text) == ["h", "5432", "d", "u", "p"])
        #expect(PasswordFile.fields(of: #"h\:x:*:\*:u\\:p\:q"#).map(\.text) == ["h:x", "*", "*", "u\\", "p:q"])
        #expect(PasswordFile.fields(of: #"h:*:\*:u:p"#).map(\.isWildcard) == [false, true, false, false, false])
    }

    @Test func aServiceFromTheServiceFile() throws {
        let folder = try home([".pg_service.conf": """
            # libpq's format
            [other]
            host=elsewhere

            [cup]
            host = db.example
            port=6543
            dbname=worldcup
            user=ana
            sslmode=require
            """, "system/pg_service.conf": "[fromsystem]\nhost=/tmp/pg\n", "bad.conf": "[cup]\nhost=x\nsslcompression=1\n"])
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let system = ["PGSYSCONFDIR": folder.file("system").path]
        let cup = try location("postgres://?service=cup", home: folder, system)
        #expect(cup.url == PostgresURL(user: "ana", host: "db.example", port: 6543, database: "worldcup"))
        #expect(cup.tls.mode == .require)
        // The URL wins over the service, the service over the environment.
        let mixed = try location("postgres://bo@/cup2", home: folder, system.merging(["PGSERVICE": "cup", "PGPORT": "7000", "PGSSLMODE": "disable"]) { $1 })
        #expect(mixed.url == PostgresURL(user: "bo", host: "db.example", port: 6543, database: "cup2"))
        #expect(mixed.tls.mode == .require)
        // The system's file, when the user's has no such service.
        #expect(try location("postgres://?service=fromsystem", home: folder, system).url.socketDirectory == "/tmp/pg")
        #expect(throws: WorldCupError("The service “nowhere” is not defined in “\(folder.file(".pg_service.conf").path)” or “\(folder.file("system/pg_service.conf").path)”: add a [nowhere] section, or check PGSERVICE.")) {
            try location("postgres://?service=nowhere", home: folder, system)
        }
        #expect(throws: WorldCupError("Line 3 of the service file “\(folder.file("bad.conf").path)” sets “sslcompression”, which is not a setting worldcup knows.")) {
            try location("postgres://?service=cup", home: folder, system.merging(["PGSERVICEFILE": folder.file("bad.conf").path]) { $1 })
        }
        // A misspelt keyword's value may be a password: only the keyword is quoted.
        try "[cup]\npasword=hunter2-secret\n".write(to: folder.file("typo.conf"), atomically: true, encoding: .utf8)
        #expect(throws: WorldCupError("Line 2 of the service file “\(folder.file("typo.conf").path)” sets “pasword”, which is not a setting worldcup knows.")) {
            try location("postgres://?service=cup", home: folder, system.merging(["PGSERVICEFILE": folder.file("typo.conf").path]) { $1 })
        }
        try "[cup]\nhunter2-secret\n".write(to: folder.file("bare.conf"), atomically: true, encoding: .utf8)
        #expect(throws: WorldCupError("Line 2 of the service file “\(folder.file("bare.conf").path)” is not a keyword=value setting.")) {
            try location("postgres://?service=cup", home: folder, system.merging(["PGSERVICEFILE": folder.file("bare.conf").path]) { $1 })
        }
    }

    @Test func connectTimeoutSetsTheStoresConnectDeadline() throws {
        let empty = try home()
        defer { try? FileManager.default.removeItem(at: empty.url) }
        let given = try PostgresTeamStore(location: location("postgres://h/cup?connect_timeout=3", home: empty), deadline: .seconds(5))
        #expect(given.database.connectDeadline == .seconds(3))
        #expect(given.database.deadline == .seconds(5))
        let unlimited = try PostgresTeamStore(location: location("postgres://h/cup?connect_timeout=0", home: empty), deadline: .seconds(5))
        #expect(unlimited.database.connectDeadline == .hours(24))
        let notGiven = try PostgresTeamStore(location: location("postgres://h/cup", home: empty), deadline: .seconds(5))
        #expect(notGiven.database.connectDeadline == nil)
    }

    @Test func theSettingsNameWhatWentWrongWithItsValues() throws {
        let folder = try home([".pg_service.conf": "[cup]\nport=6543\nsslmode=require\n"])
        defer { try? FileManager.default.removeItem(at: folder.url) }
        func settings(_ url: String, _ environment: [String: String] = [:]) throws(PostgresSettingsError) -> PostgresSettings {
            try PostgresSettings(url: url, environment: environment.merging(["HOME": folder.url.path]) { old, _ in old })
        }
        // The URL's first, then the service's, then the environment's, then libpq's defaults.
        let read = try settings("postgres://ana@h/cup?service=cup&application_name=from-url",
                                ["PGAPPNAME": "from-env", "PGSSLMODE": "disable", "PGCONNECT_TIMEOUT": "1"])
        #expect(read.url == PostgresURL(user: "ana", host: "h", port: 6543, database: "cup"))
        #expect(read.setting("application_name") == PostgresSettings.Setting(value: "from-url", source: "application_name"))
        #expect(read.setting("sslmode") == PostgresSettings.Setting(value: "require", source: "sslmode"))
        #expect(read.setting("connect_timeout") == PostgresSettings.Setting(value: "1", source: "PGCONNECT_TIMEOUT"))
        #expect(read.connectTimeoutSeconds == 2)
        #expect(read.setting("sslrootcert") == nil)
        #expect(try settings("postgres:///cup").url.socketDirectory == PostgresSettings.defaultSocketDirectory)
        // What went wrong, with its values, and no sentence: WorldCupPostgres words it.
        #expect(throws: PostgresSettingsError.malformedURL) { try settings("http://h/cup") }
        #expect(throws: PostgresSettingsError.unknownSSLMode("fast", source: "PGSSLMODE")) { try settings("postgres://h/cup", ["PGSSLMODE": "fast"]) }
        #expect(throws: PostgresSettingsError.notAPort("x", fromService: false)) { try settings("postgres://h/cup", ["PGPORT": "x"]) }
        #expect(throws: PostgresSettingsError.unfollowedTargetSession("standby", source: "target_session_attrs", isStandby: true)) {
            try settings("postgres://h/cup?target_session_attrs=standby")
        }
        #expect(throws: PostgresSettingsError.undefinedService("none", files: [folder.file(".pg_service.conf").path, "/nowhere/pg_service.conf"])) {
            try settings("postgres://h/cup?service=none", ["PGSYSCONFDIR": "/nowhere"])
        }
    }
}
