import Foundation
import Testing
import ThrowawayPostgres
import WorldCupPostgres
@testable import WorldCupBench

/// The pure parts of `worldcup-bench --store postgres`: arguments, URLs, the order and index
/// it declares, the report's keys. (Timings are never checked here.)
@Suite("worldcup-bench on PostgreSQL")
struct PostgresBenchTests {
    @Test("A postgres:// URL gives user, password, host, port and database, with libpq's defaults")
    func tcpURL() throws {
        let url = try #require(PostgresURL(string: "postgres://app:s%40cret@db.example:5433/worldcup"))
        #expect(url == PostgresURL(user: "app", password: "s@cret", host: "db.example", port: 5433, database: "worldcup"))
        #expect(url.configuration.host == "db.example" && url.configuration.port == 5433)
        #expect(url.configuration.username == "app" && url.configuration.password == "s@cret" && url.configuration.database == "worldcup")
        let bare = try #require(PostgresURL(string: "postgresql://db.example"))
        #expect(bare == PostgresURL(user: "postgres", host: "db.example", port: 5432, database: "postgres"))
    }

    @Test("?host=/dir names the directory of a Unix socket, whose file carries the port")
    func socketURL() throws {
        let url = try #require(PostgresURL(string: "postgres://postgres@/bench?host=/tmp/liveresults-pg-1234"))
        #expect(url.socketDirectory == "/tmp/liveresults-pg-1234" && url.database == "bench")
        #expect(url.configuration.unixSocketPath == "/tmp/liveresults-pg-1234/.s.PGSQL.5432")
        #expect(PostgresURL(string: "postgres://u@/d?host=/run/pg&x=1")?.configuration.unixSocketPath == "/run/pg/.s.PGSQL.5432")
        #expect(PostgresURL(string: "postgres://u@:6000/d?host=/run/pg")?.configuration.unixSocketPath == "/run/pg/.s.PGSQL.6000")
    }

    @Test("Other schemes and non-URLs are refused")
    func notPostgresURLs() {
        for text in ["mysql://u@h/d", "db.example:5432", "", "http://x"] {
            #expect(PostgresURL(string: text) == nil, "\(text)")
        }
    }

    @Test("A URL prints as one that reads back as the same value (the memory probe's child gets it so)")
    func roundTrip() {
        let urls = [
            PostgresURL(user: "postgres", socketDirectory: "/tmp/liveresults-pg-ab12cd34", database: "worldcup_bench_42_1000"),
            PostgresURL(user: "app", password: "p@ss:w/rd", host: "db.example", port: 5433, database: "bench"),
            PostgresURL(),
        ]
        for url in urls {
            #expect(PostgresURL(string: url.connectionString) == url, "\(url.connectionString)")
        }
    }

    @Test("--store is sqlite by default; postgres takes an optional --postgres-url")
    func storeArguments() throws {
        #expect(try BenchCommand.parse([]).store == .sqlite)
        let postgres = try BenchCommand.parse(["--store", "postgres", "--no-terminal"])
        #expect(postgres.store == .postgres && postgres.postgresURL == nil)
        let remote = try BenchCommand.parse(["--store", "postgres", "--postgres-url", "postgres://u@h:1/d", "--rows", "1000"])
        #expect(remote.postgresURL == "postgres://u@h:1/d" && remote.rows == [1000])
    }

    @Test("Refused: an unknown store, a URL without --store postgres or not postgres://, postgres with --terminal-only")
    func badStoreArguments() {
        let refused: [[String]] = [
            ["--store", "mysql"],
            ["--postgres-url", "postgres://u@h/d"],
            ["--store", "sqlite", "--postgres-url", "postgres://u@h/d"],
            ["--store", "postgres", "--postgres-url", "mysql://u@h/d"],
            ["--store", "postgres", "--terminal-only"],
        ]
        for arguments in refused {
            #expect(throws: (any Error).self, "\(arguments)") { try BenchCommand.parse(arguments) }
        }
    }

    @Test("The probe takes either a database file or a PostgreSQL URL")
    func probeArguments() {
        #expect(throws: (any Error).self) { try RSSProbeCommand.parse([]) }
        #expect(throws: (any Error).self) { try RSSProbeCommand.parse(["--database", "a", "--database-url", "postgres://u@h/d"]) }
        #expect(throws: (any Error).self) { try RSSProbeCommand.parse(["--database-url", "x"]) }
        #expect((try? RSSProbeCommand.parse(["--database-url", "postgres://u@/d?host=/tmp/x"])) != nil)
        // Through the root command, as the benchmark starts its child.
        #expect((try? BenchCommand.parseAsRoot(["rss-probe", "--database-url", "postgres://u@/d?host=/tmp/x"])) is RSSProbeCommand)
    }

    @Test("The board's order on PostgreSQL: text COLLATE \"C\", NULLs where SQLite puts them, the id last; the index declares the same")
    func order() {
        #expect(PostgresBoard.orderSQL == #""zoneID" ASC NULLS FIRST, "wins" DESC NULLS LAST, "nameSortKey" COLLATE "C" ASC NULLS FIRST, id ASC"#)
        #expect(PostgresSchema.createBoardIndex == "CREATE INDEX team_in_scoreboard_order ON team (" + PostgresBoard.orderSQL + #") INCLUDE ("nameKey")"#)
        #expect(PostgresBoard.peerSQL == "SELECT id FROM team ORDER BY " + PostgresBoard.orderSQL)
        #expect(PostgresBoard.keyQuerySQL.hasPrefix(#"SELECT "id", "zoneID", "wins", "nameSortKey", "zoneID" FROM team"#))
    }

    @Test("A plan reads the index in order when it scans it and sorts nothing")
    func plans() {
        #expect(PostgresBoard.readsIndexInOrder(["Index Only Scan using team_in_scoreboard_order on team  (cost=0.42..100.00 rows=1000 width=8)"]))
        #expect(!PostgresBoard.readsIndexInOrder(["Sort  (cost=1.00..2.00 rows=1000 width=8)", "  ->  Seq Scan on team"]))
        #expect(!PostgresBoard.readsIndexInOrder(["Incremental Sort", "  ->  Index Scan using team_in_scoreboard_order on team"]))
    }

    static func result(_ store: BenchStore) -> SizeResult {
        SizeResult(store: store, rows: 1000, incrementalP50: 300, incrementalP99: 900, peerP50: 3000, peerP99: 9000, speedup: 10,
                   fetchColdMs: 5, bareSelectMs: 2.5, fetchCachedMs: store == .sqlite ? 2 : nil, rssMB: 20,
                   crossProcessP50Ms: store == .sqlite ? 1 : nil, crossProcessP99Ms: store == .sqlite ? 2 : nil,
                   floorP50: 150, floorP99: 400, floorLogP50: store == .sqlite ? 200 : nil)
    }

    /// The keys of the JSON object of one report, in order, with their raw values.
    static func jsonObject(_ result: SizeResult) throws -> [String: Any] {
        let text = Report.json([SizeReport(rows: result.rows, controller: result, terminal: nil)])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        return try #require(array.first)
    }

    @Test("The JSON of both stores has the same keys: the SQLite bench's, plus store, peer_p99_us and the floor")
    func jsonKeys() throws {
        let sqlite = try Self.jsonObject(Self.result(.sqlite))
        let postgres = try Self.jsonObject(Self.result(.postgres))
        #expect(Set(sqlite.keys) == Set(postgres.keys))
        for key in ["store", "rows", "incremental_p50_us", "incremental_p99_us", "peer_p50_us", "peer_p99_us", "speedup",
                    "fetch_cold_ms", "fetch_cached_ms", "rss_mb", "cross_process_p50_ms", "cross_process_p99_ms",
                    "floor_p50_us", "floor_p99_us", "vs_floor", "floor_log_p50_us", "vs_floor_log", "bare_select_ms",
                    "cold_vs_bare", "terminal_launch_ms"] {
            #expect(sqlite.keys.contains(key), "\(key)")
        }
        #expect(sqlite["store"] as? String == "sqlite")
        #expect(postgres["store"] as? String == "postgres")
        #expect(postgres["floor_p50_us"] as? Double == 150 && postgres["floor_p99_us"] as? Double == 400)
        #expect(postgres["vs_floor"] as? Double == 2 && postgres["speedup"] as? Double == 10)
        #expect(postgres["fetch_cached_ms"] is NSNull && postgres["cross_process_p50_ms"] is NSNull, "not measured on PostgreSQL")
        #expect(sqlite["fetch_cached_ms"] as? Double == 2)
        #expect(postgres["bare_select_ms"] as? Double == 2.5 && postgres["cold_vs_bare"] as? Double == 2, "the cold fetch against the bare select on both stores")
        #expect(sqlite["floor_log_p50_us"] as? Double == 200 && sqlite["vs_floor_log"] as? Double == 1.5)
        #expect(postgres["floor_log_p50_us"] is NSNull, "the floor with the log's trigger is SQLite's")
    }

    @Test("The table names the store and shows both ratios: ours/floor and peer/ours")
    func table() {
        let table = Report.table([SizeReport(rows: 1000, controller: Self.result(.postgres), terminal: nil)])
        let lines = table.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].contains("store") && lines[0].contains("vs_floor") && lines[0].contains("speedup"))
        #expect(lines[1].contains("postgres") && lines[1].contains("2.00") && lines[1].contains("10.0"))
    }
}
