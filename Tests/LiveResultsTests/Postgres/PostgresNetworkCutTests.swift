import Foundation
import Glibc
@testable import LiveResults
import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// The controller behind a network that stops carrying anything: a TCP relay between it and
/// the server is frozen (SIGSTOP: no FIN, no RST, packets just stop), or killed (its
/// connections reset). A silent cut is noticed by the feed's heartbeat; either way the
/// controller says it is not live, and catches up with exact events once the network is back.
@Suite(.serialized) struct PostgresNetworkCutTests {
    /// A controller over the fixture's table reached through `relay`, counting its wake-ups.
    func controller(_ database: PostgresItems, through relay: TCPRelay, recorder: Recorder, wakeUps: Counter) -> ResultsController<Item> {
        let configuration = PostgresConnection.Configuration(host: "127.0.0.1", port: relay.port, username: database.configuration.username,
                                                             password: nil, database: database.configuration.database, tls: .disable)
        let controller = ResultsController<Item>(database: PostgresReader(configuration: configuration),
                                                 fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        controller.delegate = recorder
        controller.onChangesAvailable = { wakeUps.increment() }
        return controller
    }

    /// Refreshes until the controller shows `expected`, every batch checked (as after the
    /// other faults), and is live again; false after 10 s.
    func converge(_ controller: ResultsController<Item>, _ recorder: Recorder, held: inout [Layout], to expected: [Layout],
                  layouts: Layouts) async throws -> Bool {
        // A refetch over the read connection may catch up before the feed listens again.
        guard try await PostgresFaultTests().converge(controller, recorder, from: &held, to: expected, layouts: { layouts.all },
                                                      clear: { layouts.all.removeAll() }) else { return false }
        return try await secondsUntil(10) { controller.isLive } != nil
    }

    /// Waits until `condition` holds; the seconds it took, or nil after `limit` seconds.
    func secondsUntil(_ limit: Double, _ condition: () -> Bool) async throws -> Double? {
        let start = Date()
        while !condition() {
            if Date().timeIntervalSince(start) > limit { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
        return Date().timeIntervalSince(start)
    }

    @Test func aFrozenNetworkIsNoticedWithinFiveSecondsAndCaughtUpOnceItResumes() async throws {
        let database = try await PostgresItems()
        let socket = try #require(database.configuration.unixSocketPath, "the test server listens on a Unix socket")
        let relay = try TCPRelay(upstream: socket)
        defer { relay.kill() }
        let ids = try await database.insert((0..<9).map { Item(name: "team \($0)", zone: ["A", "B", "C"][$0 % 3], score: $0 % 4) })
        let recorder = Recorder()
        let wakeUps = Counter()
        let controller = controller(database, through: relay, recorder: recorder, wakeUps: wakeUps)
        let layouts = Layouts()
        recorder.onDidChange = { layouts.all.append($0.layout) }
        try controller.performFetch()
        var held = controller.layout
        #expect(controller.isLive)

        relay.signal(SIGSTOP)
        let wakeUpsBefore = wakeUps.value
        for id in ids { try await database.run("UPDATE item SET score = score + 5 WHERE id = \(id)") }
        let noticed = try await secondsUntil(6) { !controller.isLive }
        #expect(noticed != nil && noticed! <= 5, "the cut was noticed after \(noticed.map { "\($0) s" } ?? "more than 6 s")")
        #expect(wakeUps.value > wakeUpsBefore, "the controller is woken when it stops being live")
        try controller.processPendingChanges()
        #expect(controller.layout == held, "nothing arrives while the network is cut")

        try await Task.sleep(for: .seconds(max(0, 10 - (noticed ?? 6))))
        relay.signal(SIGCONT)
        try await database.run("UPDATE item SET zone = 'A' WHERE id = \(ids[1])")
        let expected = expectedLayout(try await database.allRows())
        #expect(try await converge(controller, recorder, held: &held, to: expected, layouts: layouts))
        await database.close()
    }

    @Test func aResetNetworkIsMadeAgainOnceItIsBackAndNothingIsMissed() async throws {
        let database = try await PostgresItems()
        let socket = try #require(database.configuration.unixSocketPath)
        var relay = try TCPRelay(upstream: socket)
        let ids = try await database.insert((0..<6).map { Item(name: "team \($0)", zone: ["A", "B"][$0 % 2], score: $0) })
        let recorder = Recorder()
        let controller = controller(database, through: relay, recorder: recorder, wakeUps: Counter())
        let layouts = Layouts()
        recorder.onDidChange = { layouts.all.append($0.layout) }
        try controller.performFetch()
        var held = controller.layout

        relay.kill()
        #expect(try await secondsUntil(5) { !controller.isLive } != nil)
        for id in ids { try await database.run("UPDATE item SET score = score + 1 WHERE id = \(id)") }
        try await database.run("DELETE FROM item WHERE id = \(ids[0])")
        relay = try TCPRelay(upstream: socket, port: relay.port)
        defer { relay.kill() }
        let expected = expectedLayout(try await database.allRows())
        #expect(try await converge(controller, recorder, held: &held, to: expected, layouts: layouts))
        await database.close()
    }
}

/// The layouts after each batch, as the recorder reports them (on the test's thread).
final class Layouts {
    var all: [[Layout]] = []
}
