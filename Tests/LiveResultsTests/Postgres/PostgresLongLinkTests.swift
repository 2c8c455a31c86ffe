import Foundation
@testable import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing
import TestSupport

/// A controller far from its server: a relay adds a delay each way. Making the probe's own
/// connection then takes longer than the probe's patience, as it does when a thousand viewers
/// connect at once; the probe must still find that notifications arrive, or the feed would read
/// the log at every beat and every notification for good.
@Suite struct PostgresLongLinkTests {
    @Test func aProbeWhoseConnectionTakesLongerThanItsPatienceStillHearsNotifications() async throws {
        let database = try await PostgresItems()
        let socket = try #require(database.configuration.unixSocketPath, "the test server listens on a Unix socket")
        // Three round trips to connect and send the probe, each of half a second: well past its patience.
        let relay = try TCPRelay(upstream: socket, delayMilliseconds: 250)
        defer { relay.kill() }
        let ids = try await database.insert(PostgresControllerTests.items)
        let configuration = PostgresConnection.Configuration(host: "127.0.0.1", port: relay.port, username: database.configuration.username,
                                                             password: nil, database: database.configuration.database, tls: .disable)
        let recorder = Recorder()
        let reader = PostgresReader(configuration: configuration)
        let controller = ResultsController<Item>(database: reader,
                                                 fetchRequest: ResultsRequest(sortDescriptors: zoneScoreName), sectionNameKeyPath: "zone")
        controller.delegate = recorder
        try controller.performFetch()
        #expect(controller.isLive)
        #expect(controller.changesPollInterval == nil, "the feed polls the log: its probe was given up")

        // The feed's first read of the log, after the fetch, is done.
        try controller.refresh()
        let feed = try #require(reader.ownWrites.listeners(under: "item").first)
        let reads = feed.logReadsBegun
        try await database.run("UPDATE item SET score = score + 10 WHERE id = \(ids[2])")
        #expect(try await controller.processChanges { controller.layout == expectedLayout(try await database.allRows()) })
        #expect(feed.logReadsBegun == reads, "the commit was applied from its notification, not read from the log")
        withExtendedLifetime(recorder) {}
        await database.close()
    }
}
