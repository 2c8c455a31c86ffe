import Foundation
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// Examples/PostgresOnly, built by `make test` (`make example`): a package that depends on
/// `LiveResultsPostgres` alone builds and links nothing of GRDB or SQLite, and its live query
/// reads a PostgreSQL table.
@Suite struct PostgresOnlyExampleTests {
    static let folder = Repository.root.appendingPathComponent("Examples/PostgresOnly/.build")
    static let binary = folder.appendingPathComponent("debug/postgres-only")

    static func requireBuilt() throws {
        try #require(FileManager.default.isExecutableFile(atPath: binary.path),
                     "Examples/PostgresOnly is not built: run `make example` (make test does).")
    }

    @Test("the build folder holds no GRDB or SQLite module")
    func buildFolderHasNoSQLite() throws {
        try Self.requireBuilt()
        let products = Self.binary.resolvingSymlinksInPath().deletingLastPathComponent()
        let built = try FileManager.default.contentsOfDirectory(atPath: products.path)
        let modules = try FileManager.default.contentsOfDirectory(atPath: products.appendingPathComponent("Modules").path)
        #expect(built.contains("LiveResultsPostgres.build"), "the listing is of the example's products: \(built)")
        let named = { (name: String) in name.localizedCaseInsensitiveContains("GRDB") || name.localizedCaseInsensitiveContains("sqlite") }
        // SwiftPM plans every target of the package graph (a folder with its file map), and
        // compiles only those the product needs: an object file is what building leaves.
        let compiled = built.filter(named).filter { folder in
            let files = FileManager.default.enumerator(atPath: products.appendingPathComponent(folder).path)?.allObjects as? [String] ?? []
            return files.contains { $0.hasSuffix(".o") || $0.hasSuffix(".swiftmodule") }
        }
        let sqlite = compiled + modules.filter(named)
        #expect(sqlite.isEmpty, "GRDB or SQLite was built for a PostgreSQL-only package: \(sqlite)")
    }

    @Test("the binary has no GRDB or sqlite3 symbol")
    func binaryHasNoSQLite() throws {
        try Self.requireBuilt()
        let linked = try Self.symbols(of: Self.binary)
        #expect(linked.count > 1_000, "nm listed the binary's symbols")
        // The dynamic ones too: a libsqlite3 the binary would load.
        let sqlite = (linked + (try Self.symbols(of: Self.binary, dynamic: true)))
            .filter { $0.contains("GRDB") || $0.contains("sqlite3") }
        #expect(sqlite.isEmpty, "the binary holds GRDB or SQLite: \(sqlite.prefix(5))")
    }

    @Test("its live query prints a PostgreSQL table's rows, decoded without GRDB")
    func readsATable() async throws {
        try Self.requireBuilt()
        let (configuration, drop) = try await TestServer.freshDatabase()
        defer { Task { await drop() } }
        let connection = try await TestServer.connect(configuration)
        try await connection.query("CREATE TABLE player (id bigserial PRIMARY KEY, name text NOT NULL, team text NOT NULL, score bigint NOT NULL)", logger: TestServer.logger)
        try await connection.query("INSERT INTO player (name, team, score) VALUES ('Ada', 'Red', 3), ('Bob', 'Blue', 5)", logger: TestServer.logger)
        try await connection.close()
        let program = Process()
        program.executableURL = Self.binary
        program.arguments = ["--once"]
        var environment = ProcessInfo.processInfo.environment
        if let socket = configuration.unixSocketPath.map(URL.init(fileURLWithPath:)) {
            // The socket's folder and the port its name ends with (".s.PGSQL.5432"), as libpq takes them.
            environment["PGHOST"] = socket.deletingLastPathComponent().path
            environment["PGPORT"] = socket.pathExtension
        } else {
            environment["PGHOST"] = configuration.host
            environment["PGPORT"] = configuration.port.map(String.init)
        }
        environment["PGUSER"] = configuration.username
        environment["PGDATABASE"] = configuration.database
        if let password = configuration.password { environment["PGPASSWORD"] = password }
        program.environment = environment
        let output = Pipe(), error = Pipe()
        program.standardOutput = output
        program.standardError = error
        try program.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        program.waitUntilExit()
        let complaint = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(program.terminationStatus == 0, "postgres-only failed: \(complaint)")
        #expect(printed.contains("Blue Bob 5") && printed.contains("Red Ada 3"), "printed: \(printed)")
    }

    /// Every symbol `nm` lists for `binary` (its dynamic table, when `dynamic`), one a line.
    static func symbols(of binary: URL, dynamic: Bool = false) throws -> [String] {
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
        nm.arguments = (dynamic ? ["-D"] : []) + [binary.path]
        let output = Pipe()
        nm.standardOutput = output
        try nm.run()
        let listed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nm.waitUntilExit()
        return listed.split(separator: "\n").map(String.init)
    }
}
