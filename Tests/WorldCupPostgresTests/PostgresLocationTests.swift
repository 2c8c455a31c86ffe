import TestSupport
import Testing
import ThrowawayPostgres
import WorldCup
import WorldCupPostgres
import WorldCupSQLite

/// `--database` URLs as libpq reads them, with the environment filling in, and masking.
struct PostgresLocationTests {
    @Test func aFullURLNeedsNothingFromTheEnvironment() throws {
        let location = try PostgresLocation(url: "postgres://app:s3cret@db.example:5433/worldcup",
                                            environment: ["PGHOST": "elsewhere", "PGUSER": "other", "PGPASSWORD": "x", "PGDATABASE": "y"])
        #expect(location.url == PostgresURL(user: "app", password: "s3cret", host: "db.example", port: 5433, database: "worldcup"))
        #expect(location.description == "postgres://app:***@db.example:5433/worldcup")
        #expect(location.server == "db.example:5433")
    }

    @Test func postgresqlSchemeAndPercentEncoding() throws {
        let location = try PostgresLocation(url: "postgresql://app:p%40ss%3Aw@db.example/world%20cup", environment: [:])
        #expect(location.url.password == "p@ss:w")
        #expect(location.url.database == "world cup")
        #expect(location.url.port == 5432)
        #expect(!location.description.contains("p@ss"))
        #expect(!location.description.contains("p%40ss"))
    }

    @Test func theUnixSocketForm() throws {
        let location = try PostgresLocation(url: "postgres:///worldcup?host=/run/postgresql", environment: ["PGUSER": "ana"])
        #expect(location.url.socketDirectory == "/run/postgresql")
        #expect(location.url.user == "ana")
        #expect(location.url.database == "worldcup")
        #expect(location.server == "/run/postgresql/.s.PGSQL.5432")
        #expect(location.url.configuration.unixSocketPath == "/run/postgresql/.s.PGSQL.5432")
    }

    @Test func theEnvironmentFillsInWhatTheURLLeavesOut() throws {
        let environment = ["PGHOST": "db.example", "PGPORT": "6543", "PGUSER": "ana", "PGPASSWORD": "pw", "PGDATABASE": "cup"]
        let location = try PostgresLocation(url: "postgres://", environment: environment)
        #expect(location.url == PostgresURL(user: "ana", password: "pw", host: "db.example", port: 6543, database: "cup"))
        #expect(location.description == "postgres://ana:***@db.example:6543/cup")
        // A socket directory in PGHOST; the database defaults to the user's name, as in libpq.
        let socket = try PostgresLocation(url: "postgres://bo@", environment: ["PGHOST": "/tmp/pg"])
        #expect(socket.url.socketDirectory == "/tmp/pg")
        #expect(socket.url.database == "bo")
        // Nothing at all: libpq's default socket directory.
        let bare = try PostgresLocation(url: "postgresql:///cup", environment: [:])
        #expect(bare.url.socketDirectory == PostgresLocation.defaultSocketDirectory)
    }

    @Test func libpqsOtherSpellingsOfTheHost() throws {
        // A bracketed IPv6 address, as libpq writes it in a URL.
        let v6 = try PostgresLocation(url: "postgres://app@[::1]:5433/worldcup", environment: [:])
        #expect(v6.url.host == "::1")
        #expect(v6.url.socketDirectory == nil)
        #expect(v6.server == "[::1]:5433")
        #expect(v6.url.connectionString == "postgres://app@[::1]:5433/worldcup")
        // A socket's directory, percent-encoded as the host.
        let socket = try PostgresLocation(url: "postgres://app@%2Frun%2Fpostgresql/worldcup", environment: [:])
        #expect(socket.url.socketDirectory == "/run/postgresql")
        #expect(socket.server == "/run/postgresql/.s.PGSQL.5432")
        // ?host= wins over the authority's host, either way.
        #expect(try PostgresLocation(url: "postgres://%2Ftmp/w?host=db.example", environment: [:]).url.socketDirectory == nil)
        #expect(try PostgresLocation(url: "postgres://db.example/w?host=/tmp", environment: [:]).url.socketDirectory == "/tmp")
    }

    @Test func severalHostsAsLibpqReadsThem() throws {
        let pair = try PostgresLocation(url: "postgres://app:hunter2@h1:5432,h2:5433,[::1]/worldcup?target_session_attrs=read-write", environment: [:])
        #expect(pair.url == PostgresURL(user: "app", password: "hunter2", host: "h1", port: 5432, database: "worldcup"))
        #expect(pair.otherURLs.map { "\($0.host):\($0.port)" } == ["h2:5433", "::1:5432"])
        // A host without its port has the default one, as in libpq; ?port= alone is every host's.
        let defaults = try PostgresLocation(url: "postgres://h1:6000,h2/w", environment: ["PGPORT": "7000"])
        #expect(defaults.url.port == 6000 && defaults.otherURLs.map(\.port) == [7000])
        #expect(try PostgresLocation(url: "postgres:///w?host=h1,h2&port=6000", environment: [:]).otherURLs.map(\.port) == [6000])
        #expect(pair.otherURLs.allSatisfy { $0.password == "hunter2" && $0.database == "worldcup" })
        #expect(pair.targetSession == .readWrite)
        let query = try PostgresLocation(url: "postgres:///worldcup?host=h1,/tmp/pg&port=5432,5434", environment: [:])
        #expect(query.url.host == "h1" && query.url.port == 5432)
        #expect(query.otherURLs.map(\.socketDirectory) == ["/tmp/pg"] && query.otherURLs.map(\.port) == [5434])
        #expect(throws: WorldCupError("The target_session_attrs “standby” (target_session_attrs) is not one worldcup follows: a board writes, so it follows a primary; use any, read-write or primary.")) {
            try PostgresLocation(url: "postgres://h1,h2/worldcup?target_session_attrs=standby", environment: [:])
        }
        // As many ports as hosts, or the URL is malformed.
        #expect(throws: WorldCupError.self) { try PostgresLocation(url: "postgres:///w?host=h1,h2&port=1,2,3", environment: [:]) }
    }

    @Test func optionsNameTheBoardsSchema() throws {
        let schema = try PostgresLocation(url: "postgres://app@h/postgres?options=-c%20search_path%3Dworldcup", environment: [:])
        #expect(schema.options == "-c search_path=worldcup")
        #expect(schema.schema == "worldcup")
        // A board in a schema of its own may live in the database hosted servers hand out.
        #expect(!schema.isServersOwnDatabase)
        #expect(try PostgresLocation(url: "postgres://app@h/postgres", environment: [:]).isServersOwnDatabase)
        #expect(try PostgresLocation(url: "postgres://app@h/template1?options=-csearch_path%3Dcup", environment: [:]).isServersOwnDatabase)
        let variable = try PostgresLocation(url: "postgres://app@h/postgres", environment: ["PGOPTIONS": "--search_path=\"Cup\",public"])
        #expect(variable.schema == "Cup")
        // The default schemas are no schema of its own.
        #expect(try PostgresLocation(url: "postgres://app@h/postgres", environment: ["PGOPTIONS": "-c search_path=public"]).isServersOwnDatabase)
        #expect(try PostgresLocation(url: "postgres://app@h/postgres", environment: ["PGOPTIONS": "-c statement_timeout=5s"]).schema == nil)
        let configuration = try schema.connectionConfiguration()
        #expect(configuration.options.additionalStartupParameters.contains { $0 == "options" && $1 == "-c search_path=worldcup" })
    }

    @Test func nothingPrintedHoldsThePassword() throws {
        let location = try PostgresLocation(url: "postgres://app:hunter2@db.example/cup", environment: [:])
        for shown in ["\(location)", "\(location.url)", String(reflecting: location.url), String(reflecting: location),
                      location.description, location.url.description] {
            #expect(!shown.contains("hunter2"), "\(shown)")
        }
        var dumped = ""
        dump(location, to: &dumped)
        #expect(!dumped.contains("hunter2"), "\(dumped)")
        #expect(location.url.connectionString == "postgres://app:hunter2@db.example:5432/cup")
    }

    @Test func queryParametersAsLibpqReadsThem() throws {
        let location = try PostgresLocation(url: "postgres://h/?dbname=cup&user=ana&port=7000&sslmode=disable", environment: [:])
        #expect(location.url == PostgresURL(user: "ana", host: "h", port: 7000, database: "cup"))
    }

    @Test(arguments: ["postgres://app:secret@db.example:notaport/cup", "postgres://app:secret@db.example:99999/cup",
                      "postgres://app:secret@[db/cup", "postgres://app:secret@h/cup?port=x"])
    func malformedURLsAreOneSentenceWithoutThePassword(_ text: String) {
        #expect(throws: WorldCupError("The database URL is not a valid PostgreSQL URL (postgres://user:password@host:port/database).")) {
            try PostgresLocation(url: text, environment: [:])
        }
    }

    @Test func unsupportedParametersAreRefused() {
        #expect(throws: WorldCupError("The database URL has a parameter worldcup does not know: “sslcompression”.")) {
            try PostgresLocation(url: "postgres://h/cup?sslcompression=1", environment: [:])
        }
        #expect(throws: WorldCupError("PGPORT is not a port number: “five”.")) {
            try PostgresLocation(url: "postgres://h/cup", environment: ["PGPORT": "five"])
        }
    }

    @Test func onlyURLsNameServers() {
        #expect(PostgresLocation.isURL("postgres://h/db"))
        #expect(PostgresLocation.isURL("PostgreSQL://h/db"))
        #expect(!PostgresLocation.isURL("/tmp/postgres://x.sqlite"))
        #expect(!PostgresLocation.isURL("WorldCup.sqlite"))
    }
}

/// The schema's pure parts.
struct PostgresSchemaTests {
    /// 13 has no `CREATE OR REPLACE TRIGGER`, which the change log uses; 12 no `xid8`.
    @Test func serversOlderThan14AreRefused() throws {
        #expect(throws: WorldCupError("The PostgreSQL server at h:5432 runs version 13, and worldcup needs version 14 or later.")) {
            try PostgresSchema.checkServer(versionNumber: 130_012, server: "h:5432")
        }
        #expect(throws: WorldCupError("The PostgreSQL server at h:5432 runs version 9.6, and worldcup needs version 14 or later.")) {
            try PostgresSchema.checkServer(versionNumber: 90_624, server: "h:5432")
        }
        try PostgresSchema.checkServer(versionNumber: 140_000, server: "h:5432")
        try PostgresSchema.checkServer(versionNumber: 150_004, server: "h:5432")
    }

    @Test func theBoardOrderIsTheControllers() {
        #expect(PostgresSchema.orderTerms == [
            #""zoneID" ASC NULLS FIRST"#, #""wins" DESC NULLS LAST"#, #""nameSortKey" COLLATE "C" ASC NULLS FIRST"#,
            "id ASC",
        ])
    }

    @Test func aNewerSchemaIsRefused() throws {
        let location = PostgresLocation(PostgresURL(host: "h", database: "cup"))
        #expect(throws: WorldCupError("The database “cup” on h:5432 was made by a newer worldcup (schema version 9; this one knows up to \(PostgresSchema.version)), so it was left alone.")) {
            try PostgresSchema.checkVersion(9, location: location)
        }
        try PostgresSchema.checkVersion(PostgresSchema.version, location: location)
    }
}
