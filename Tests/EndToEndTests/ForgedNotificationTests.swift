import Foundation
import Testing
import TestSupport
import ThrowawayPostgres

/// A spectator's attack on a shared board, as a person would make it with psql: the README's
/// watcher (a role that may only read) hears a real tap's notification, then sends one in the
/// same layout at the next position, naming another transaction and moving the team to
/// another zone with 99 wins. PostgreSQL accepts it (any role may NOTIFY any channel); the
/// owner's board must not move, before or after a real tap.
@Suite("Forged notifications", .serialized)
struct ForgedNotificationTests {
    @Test("A watcher's forged notification moves nothing on the owner's board, which stays equal to worldcup list --json")
    func forgedNotification() throws {
        let server = try SharedServer()
        let watcher = try server.makeWatcher()
        let board = try TmuxTerminal(command: server.board(), width: 100, height: 60)
        #expect(board.waitFor("32 teams"))
        let real = try heardAsWatcher(server, watcher) { try server.tap("Brazil") }
        #expect(waitUntil(seconds: 2) { BoardRows(board.screen).wins["Brazil"] == 1 }, "\(board.screen)")
        let africa = try server.sql("SELECT id FROM zone WHERE name = 'Africa'").trimmingCharacters(in: .whitespacesAndNewlines)
        let forged = try #require(Forgery(real)?.next(values: ["zoneID": africa, "wins": "99"]), "a payload in the log's layout: \(real)")
        try server.sql("SELECT pg_notify('liveresults_team', $forged$\(forged)$forged$)", user: watcher)
        try server.sql("NOTIFY liveresults_team", user: watcher)
        Thread.sleep(forTimeInterval: 1)
        #expect(zone(of: "Brazil", on: board.screen) == "South America", "the forgery moved the board:\n\(board.screen)")
        #expect(!board.screen.contains("Wins: 99"), "the forgery moved the board:\n\(board.screen)")
        #expect(BoardRows(board.screen).wins == (try server.wins()), "\(board.screen)")
        // A real tap of another team: the board follows it, and Brazil never moved.
        try server.tap("Mexico")
        #expect(waitUntil(seconds: 3) { BoardRows(board.screen).wins["Mexico"] == 1 }, "\(board.screen)")
        #expect(BoardRows(board.screen).wins == (try server.wins()), "\(board.screen)")
        #expect(zone(of: "Brazil", on: board.screen) == "South America", "\(board.screen)")
        #expect(!board.screen.contains("Wins: 99"), "\(board.screen)")
    }

    /// The zone whose section shows `team` on the board's screen: the heading above its row.
    private func zone(of team: String, on screen: String) -> String? {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        guard let row = lines.firstIndex(where: { $0.contains(" \(team) ") && $0.contains("Wins:") }) else { return nil }
        let heading = lines[..<row].last { !$0.contains("Wins:") }
        return heading.map { $0.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0] }
    }

    /// The payload of the notification `action` causes on the team's channel, as the watcher
    /// hears it in psql.
    private func heardAsWatcher(_ server: SharedServer, _ watcher: String, _ action: () throws -> Void) throws -> String {
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "\(ThrowawayPostgres.binaries)/psql")
        psql.arguments = ["-h", server.cluster.socketDirectory, "-p", "\(server.cluster.port)", "-U", watcher, "-d", server.database,
                          "-c", "LISTEN liveresults_team", "-c", "SELECT pg_sleep(2)"]
        let out = Pipe()
        psql.standardOutput = out
        psql.standardError = FileHandle.nullDevice
        try psql.run()
        Thread.sleep(forTimeInterval: 0.7)
        try action()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        psql.waitUntilExit()
        let prefix = "with payload \""
        let line = try #require(text.split(separator: "\n").first { $0.contains(prefix) }, "psql heard: \(text)")
        let start = try #require(line.range(of: prefix)).upperBound
        let end = try #require(line.range(of: "\" received from server process", options: .backwards)).lowerBound
        return String(line[start..<end])
    }
}

/// A notification in the log's layout, `lr3 <xid> <table> <n> <columns> <position> v <id>
/// <values> [# <note>]`, taken apart as a forger would, to make the next one.
private struct Forgery {
    var version: String
    var xid: UInt64
    var table: String
    var columns: [String]
    var position: Int64
    var id: Int64
    var values: [String]

    init?(_ text: String) {
        var scalars = Substring(text)
        func word() -> String? {
            scalars = scalars.drop { $0 == " " }
            let word = scalars.prefix { $0 != " " }
            scalars = scalars.dropFirst(word.count)
            return word.isEmpty ? nil : String(word)
        }
        func lengthPrefixed() -> String? {
            scalars = scalars.drop { $0 == " " }
            guard let colon = scalars.firstIndex(of: ":"), let length = Int(scalars[..<colon]) else { return nil }
            let body = scalars[scalars.index(after: colon)...].unicodeScalars.prefix(length)
            scalars = Substring(scalars[scalars.index(after: colon)...].unicodeScalars.dropFirst(length))
            return String(String.UnicodeScalarView(body))
        }
        guard let version = word(), ["lr2", "lr3"].contains(version), let xid = word().flatMap({ UInt64($0) }), let table = lengthPrefixed(),
              let count = word().flatMap({ Int($0) }) else { return nil }
        var columns: [String] = []
        for _ in 0..<count { guard let column = lengthPrefixed() else { return nil }; columns.append(column) }
        guard let position = word().flatMap({ Int64($0) }), word() == "v", let id = word().flatMap({ Int64($0) }) else { return nil }
        var values: [String] = []
        for _ in 0..<count { guard let value = lengthPrefixed() else { return nil }; values.append(value) }
        (self.version, self.xid, self.table, self.columns, self.position, self.id, self.values) = (version, xid, table, columns, position, id, values)
    }

    /// The next notification: another transaction, the next position, the same row with
    /// `changes` to its columns.
    func next(values changes: [String: String]) -> String {
        func encode(_ text: String) -> String { "\(text.unicodeScalars.count):\(text)" }
        let values = zip(columns, self.values).map { changes[$0.0] ?? $0.1 }
        return "\(version) \(xid + 1_000) \(encode(table)) \(columns.count) " + columns.map(encode).joined(separator: " ")
            + " \(position + 1) v \(id) " + values.map(encode).joined(separator: " ")
    }
}
