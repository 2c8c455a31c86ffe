@testable import LiveResultsPostgres
import PostgresNIO
import Testing

/// The change log on a real server: what the triggers record, the NOTIFY, and reading in the
/// face of transactions that commit out of position order.
@Suite struct ChangeLogServerTests {
    static let createTeam = "CREATE TABLE team (id bigint PRIMARY KEY, name text)"

    /// A reader that remembers the largest position it read: what the log's positions
    /// suggest, and wrong when transactions commit out of position order.
    struct NaiveReader {
        var last: Int64 = 0
        mutating func read(_ connection: PostgresConnection) async throws -> [Int64] {
            let positions = try await connection.column("SELECT position FROM liveresults_change WHERE position > \(last) ORDER BY position", as: Int64.self)
            last = positions.last ?? last
            return positions
        }
    }

    /// The `team` table with its change log, two writer connections and a reader's connection.
    static func twoWritersAndAReader(_ connect: () async throws -> PostgresConnection) async throws
        -> (PostgresConnection, PostgresConnection, PostgresConnection) {
        let setup = try await connect()
        try await setup.run(createTeam)
        try await PostgresChangeLog.install(on: "team", connection: setup)
        return (try await connect(), try await connect(), try await connect())
    }

    @Test func aTransactionThatCommitsAfterALaterPositionIsNotSkipped() async throws {
        try await withDatabase { connect in
            let (a, b, readerConnection) = try await Self.twoWritersAndAReader(connect)
            var reader = ChangeLogReader(cursor: try ChangeLogReader.start(connection: readerConnection))
            var naive = NaiveReader()

            // A takes position 1 and stays open; B takes position 2 and commits.
            try await a.run("BEGIN", "INSERT INTO team VALUES (1, 'A')")
            try await b.run("INSERT INTO team VALUES (2, 'B')")
            #expect(try await readerConnection.column("SELECT position FROM liveresults_change", as: Int64.self) == [2])
            let firstRead = try await reader.read(table: "team", connection: readerConnection).map(\.position)
            let naiveFirstRead = try await naive.read(readerConnection)

            // A commits.
            try await a.run("COMMIT")
            let secondRead = try await reader.read(table: "team", connection: readerConnection).map(\.position)
            let naiveSecondRead = try await naive.read(readerConnection)

            #expect(try await readerConnection.column("SELECT position FROM liveresults_change ORDER BY position", as: Int64.self) == [1, 2])
            // Ours reads B's entry at once, and A's as soon as A commits: each once.
            #expect(firstRead == [2])
            #expect(secondRead == [1])
            #expect(try await reader.read(table: "team", connection: readerConnection).isEmpty)
            // The naive reader reads 2 and never 1: the interleaving really happened.
            #expect(naiveFirstRead == [2])
            #expect(naiveSecondRead == [])
        }
    }

    @Test func aRunningTransactionNewerThanTheLastToFinishIsNotSkipped() async throws {
        try await withDatabase { connect in
            let (a, b, readerConnection) = try await Self.twoWritersAndAReader(connect)
            var reader = ChangeLogReader(cursor: try ChangeLogReader.start(connection: readerConnection))

            // A gets the older xid and position 1; B the newer xid and position 2; A takes
            // position 3 and commits. The snapshot's xmax is then one past A: B, running, is
            // not among its xip (unless another session of the server finished a newer xid).
            try await a.run("BEGIN", "INSERT INTO team VALUES (1, 'A')")
            try await b.run("BEGIN", "INSERT INTO team VALUES (2, 'B')")
            let bXID = try await b.column("SELECT pg_current_xact_id()::text", as: String.self).first.flatMap(UInt64.init)
            try await a.run("INSERT INTO team VALUES (3, 'A')", "COMMIT")
            let firstRead = try await reader.read(table: "team", connection: readerConnection).map(\.position)
            let listed = bXID.map { reader.cursor.inProgress.contains($0) } ?? true
            try await b.run("COMMIT")
            let secondRead = try await reader.read(table: "team", connection: readerConnection).map(\.position)

            #expect(firstRead == [1, 3])
            #expect(secondRead == [2], "B's entry, below the position read, is read when B commits (B listed as running: \(listed))")
            #expect(try await reader.read(table: "team", connection: readerConnection).isEmpty)
        }
    }

    @Test func triggersRecordInsertsUpdatesIdChangesAndDeletes() async throws {
        try await withDatabase { connect in
            let connection = try await connect()
            try await connection.run(Self.createTeam)
            // Twice: installing is idempotent (one entry per change below, not two).
            try await PostgresChangeLog.install(on: "team", connection: connection)
            try await PostgresChangeLog.install(on: "team", connection: connection)
            var reader = ChangeLogReader(cursor: ChangeLogCursor(position: 0))

            try await connection.run(
                "INSERT INTO team VALUES (1, 'a'), (2, 'b')",
                "UPDATE team SET name = 'c' WHERE id = 1",
                "UPDATE team SET id = 5 WHERE id = 2",
                "DELETE FROM team WHERE id = 1",
                "UPDATE team SET name = 'd' WHERE id = 99")
            // Entries become readable as the cluster's oldest running transaction moves on,
            // which other tests' open transactions hold back: read until all six are in.
            var entries: [ChangeLogEntry] = []
            _ = try await eventually {
                entries += try await reader.read(table: "team", connection: connection)
                return entries.count >= 6 ? true : nil
            }
            #expect(entries.map(\.changedID) == [1, 2, 1, 2, 5, 1])
            #expect(entries.allSatisfy { $0.tableName == "team" })
            #expect(entries.map(\.position) == entries.map(\.position).sorted())
            // The two rows of the first statement were written by one transaction.
            #expect(entries[0].xid == entries[1].xid)
            #expect(Set(entries.map(\.xid)).count == 4)
        }
    }

    @Test func aCommitNotifiesTheTablesChannel() async throws {
        try await withDatabase { connect in
            let setup = try await connect()
            try await setup.run(Self.createTeam, "CREATE TABLE other (id bigint PRIMARY KEY)")
            try await PostgresChangeLog.install(on: "team", connection: setup)
            try await PostgresChangeLog.install(on: "other", connection: setup)
            let listener = try await connect(), writer = try await connect()
            let channel = try PostgresChangeLog.channel(for: "team")
            #expect(channel == "liveresults_team")

            let received = try await withThrowingTaskGroup(of: [String]?.self) { group in
                group.addTask {
                    try await listener.listen(on: channel) { notifications in
                        // The LISTEN is in effect once this closure runs.
                        try await writer.run("INSERT INTO other VALUES (1)")
                        try await writer.run("BEGIN", "INSERT INTO team VALUES (1, 'a')", "INSERT INTO team VALUES (2, 'b')", "COMMIT")
                        try await writer.run("DELETE FROM team")
                        // A mark after them: notifications of one session arrive in commit order.
                        try await writer.run("NOTIFY liveresults_team, 'end'")
                        var payloads: [String] = []
                        for try await notification in notifications {
                            payloads.append(notification.payload)
                            if notification.payload == "end" { return payloads }
                        }
                        return payloads
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(30))
                    return nil
                }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            // One notification per transaction that changed the table (sent at its commit,
            // with the entries of both statements of the first), none for the other table's,
            // each naming its transaction as the log does.
            let logged = try await writer.column("SELECT xid::text FROM liveresults_change WHERE table_name = 'team' GROUP BY xid ORDER BY min(position)", as: String.self)
            #expect(logged.count == 2)
            let commits = (received ?? []).map(NotifiedCommit.init(text:))
            #expect(commits.map { $0.map { String($0.xid) } ?? "end" } == logged + ["end"], "notifications within 30 seconds (the whole suite loads the machine)")
            let positions = try await writer.column("SELECT position FROM liveresults_change WHERE table_name = 'team' ORDER BY position", as: Int64.self)
            #expect(commits.first??.entries == [.init(position: positions[0], id: 1, values: ["1", "a"]),
                                                .init(position: positions[1], id: 2, values: ["2", "b"])])
            #expect(commits.first??.columns == ["id", "name"])
            #expect(commits.dropFirst().first??.entries.map(\.values) == [nil, nil], "the delete's rows are gone")
        }
    }

    @Test func installingTakesPartInTheCallersTransaction() async throws {
        try await withDatabase { connect in
            let connection = try await connect()
            try await connection.run(Self.createTeam, "BEGIN")
            try await PostgresChangeLog.install(on: "team", connection: connection)
            try await connection.run("ROLLBACK")
            #expect(try await connection.column("SELECT to_regclass('liveresults_change') IS NULL", as: Bool.self) == [true])
            #expect(try await connection.column("SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'liveresults%'", as: Int64.self) == [0])
        }
    }

    @Test func installingOnAMissingTableFailsInOneSentence() async throws {
        try await withDatabase { connect in
            let connection = try await connect()
            await #expect(throws: LiveResultsPostgresError("The change log could not be installed on “nope”: relation \"nope\" does not exist.")) {
                try await PostgresChangeLog.install(on: "nope", connection: connection)
            }
        }
    }

    @Test func aTableNameTooLongForAChannelIsRefusedInOneSentence() {
        #expect(throws: LiveResultsPostgresError.self) {
            try PostgresChangeLog.channel(for: String(repeating: "x", count: 52))
        }
        #expect((try? PostgresChangeLog.channel(for: String(repeating: "x", count: 51))) != nil)
    }
}
