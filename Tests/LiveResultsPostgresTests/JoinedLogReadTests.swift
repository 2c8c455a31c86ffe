import Foundation
import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

/// The joined log read (`LogRead+Related`): what a feed whose sections come through a related
/// table reads after each kind of commit, and what it does not read. A related row changed in
/// place is read alone (no row of the main table); rows are read again by foreign key only for
/// related rows that appeared or went.
@Suite struct JoinedLogReadTests {
    /// A database with zones 1…3 and members 1…6 (two per zone), both logged, and a log read
    /// of members sectioned through their zones, positioned after all that.
    final class Fixture: @unchecked Sendable { // Used by one test.
        let connection: PostgresConnection
        let read: LogRead
        var cursor: ChangeLogCursor
        var related: RelatedKeys
        let drop: @Sendable () async -> Void

        init() async throws {
            let (configuration, drop) = try await TestServer.freshDatabase()
            self.drop = drop
            connection = try await TestServer.connect(configuration)
            try await connection.run(
                "CREATE TABLE zone (id int8 PRIMARY KEY, name text NOT NULL, position int4 NOT NULL)",
                "CREATE TABLE member (id int8 PRIMARY KEY, name text, zone_id int8, score int4)",
                "CREATE INDEX member_zone ON member (zone_id)",
                "INSERT INTO zone VALUES (1, 'Africa', 0), (2, 'Asia', 1), (3, 'Europe', 2)",
                "INSERT INTO member SELECT n, 'm' || n, (n + 1) / 2, n FROM generate_series(1, 6) AS n")
            try await PostgresChangeLog.install(on: "zone", connection: connection)
            try await PostgresChangeLog.install(on: "member", connection: connection)
            let keys = PostgresKeyQuery(tableName: "member", sortDescriptors: [SortColumn("score", ascending: false)],
                                        related: RelatedSections(table: "zone", foreignKey: "zone_id", title: "name", order: [SortColumn("position")]))
            let statements = try keys.prepare(connection)
            read = try LogRead(statements)
            cursor = try ChangeLogReader.start(connection: connection)
            related = RelatedKeys(try statements.related!.relatedRows(connection, withCursor: false, logger: Logger(label: "test")).rows)
        }

        /// Runs `statements` (each committed), then reads the log after the cursor and moves it on.
        func commitAndRead(_ statements: String...) async throws -> LogRead.Found {
            for statement in statements { try await connection.run(statement) }
            let rows = try await connection.query(read.query(after: cursor, related: related), logger: logger).collect()
            let found = try read.decode(rows)
            cursor = cursor.after(found.lastPosition, snapshot: found.snapshot)
            related.update(after: found, missed: false)
            return found
        }

        func close() async {
            try? await connection.close()
            await drop()
        }
    }

    static func key(_ found: LogRead.Found, _ id: RecordID) -> RowKey?? {
        found.rows.first { $0.id == id }.map(\.key)
    }

    @Test("A zone renamed or moved is read alone: its new title and order, no member row")
    func inPlaceChangesReadNoRow() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.close() } }
        let renamed = try await fixture.commitAndRead("UPDATE zone SET name = 'CAF' WHERE id = 1")
        #expect(renamed.rows.isEmpty)
        #expect(renamed.sections.count == 1)
        #expect(renamed.sections.first?.id == Int64(1).columnValue)
        #expect(renamed.sections.first?.row == SectionRow(title: "CAF", order: [Int64(0).columnValue]))

        let moved = try await fixture.commitAndRead(
            "UPDATE zone SET position = CASE WHEN id = 1 THEN 1 ELSE 0 END WHERE id IN (1, 2)")
        #expect(moved.rows.isEmpty)
        #expect(Set(moved.sections.map(\.id)) == [Int64(1).columnValue, Int64(2).columnValue])
        #expect(moved.sections.first { $0.id == Int64(2).columnValue }?.row?.order == [Int64(0).columnValue])
    }

    @Test("A member reassigned is read with its new zone; one moved to a zone that does not exist leaves the result")
    func reassignedMembers() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.close() } }
        let found = try await fixture.commitAndRead("UPDATE member SET zone_id = 3 WHERE id = 1", "UPDATE member SET zone_id = 9 WHERE id = 2")
        #expect(found.sections.isEmpty)
        #expect(Self.key(found, 1) == .some(RowKey(section: Int64(3).columnValue, sort: [Int64(1).columnValue])))
        #expect(Self.key(found, 2) == .some(nil), "a member of no zone is not in the join")
        #expect(found.readByForeignKey.isEmpty && found.rejoined.isEmpty)
    }

    @Test("A member an entry names and whose zone went is read by foreign key too, yet written: not among the rows read only by foreign key")
    func writtenAndRejoined() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.close() } }
        let found = try await fixture.commitAndRead("UPDATE member SET score = 40 WHERE id = 3", "DELETE FROM zone WHERE id = 2")
        #expect(Set(found.rows.map(\.id)) == [3, 4])
        #expect(found.rejoined == [3, 4])
        #expect(found.readByForeignKey == [4])
    }

    @Test("A zone deleted takes its members out, and a zone inserted brings in those that named it: their rows are read by foreign key")
    func zonesAppearingAndGoing() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.close() } }
        let deleted = try await fixture.commitAndRead("DELETE FROM zone WHERE id = 2")
        #expect(deleted.sections.count == 1 && deleted.sections.first?.row == nil)
        #expect(Set(deleted.rows.map(\.id)) == [3, 4])
        #expect(deleted.rows.allSatisfy { $0.key == nil })

        #expect(deleted.readByForeignKey == [3, 4] && deleted.rejoined == [3, 4], "no entry named them")

        let inserted = try await fixture.commitAndRead("INSERT INTO zone VALUES (2, 'Asia again', 5)")
        #expect(inserted.sections.first?.row?.title == "Asia again")
        #expect(Set(inserted.rows.map(\.id)) == [3, 4])
        #expect(inserted.readByForeignKey == [3, 4])
        #expect(inserted.rows.allSatisfy { $0.key?.section == Int64(2).columnValue })

        // Deleted and inserted again between two reads: in place, as far as the reads can tell.
        let again = try await fixture.commitAndRead("DELETE FROM zone WHERE id = 3", "INSERT INTO zone VALUES (3, 'Europe', 2)")
        #expect(again.rows.isEmpty)
    }

    @Test("With the related keys unknown (a missed log), every zone named has its members read again, and the keys come back")
    func unknownKeysReadEverything() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.close() } }
        fixture.related = RelatedKeys()
        let found = try await fixture.commitAndRead("UPDATE zone SET name = 'CAF' WHERE id = 1")
        #expect(Set(found.rows.map(\.id)) == [1, 2])
        #expect(found.readByForeignKey == [1, 2], "read for their zone alone")
        #expect(found.relatedKeys.map(Set.init) == [1, 2, 3])
        #expect(fixture.related.known)
        let next = try await fixture.commitAndRead("UPDATE zone SET name = 'Africa' WHERE id = 1")
        #expect(next.rows.isEmpty && next.relatedKeys == nil)
    }
}

