import Foundation
import LiveResultsPostgres
import NIOPosix
import PostgresNIO
import Synchronization
import ThrowawayPostgres

/// The fan-out's floor: `count` plain postgres-nio connections that LISTEN on the board's
/// channel and note when each notification arrives, with no LiveResults at all. Reported as
/// viewers are (`FanoutViewerReport`), each notification a sighting of the team its
/// notification names (one tap a transaction), so that the benchmark tallies both alike.
final class RawListeners {
    private let connections: [PostgresConnection]
    private let heard: [Heard]

    /// What one listener heard, written on its event loop.
    private final class Heard: Sendable {
        let notifications = Mutex<[(payload: String, at: UInt64)]>([])
    }

    /// Connects and LISTENs `count` connections to the board at `url`, one after the other.
    init(url: PostgresURL, count: Int) throws {
        let channel = try PostgresChangeLog.channel(for: "team")
        let heard = (0..<count).map { _ in Heard() }
        self.heard = heard
        connections = try (0..<count).map { index in
            let connection = try PG.connect(url)
            connection.addListener(channel: channel) { _, notification in
                let at = Monotonic.now()
                heard[index].notifications.withLock { $0.append((notification.payload, at)) }
            }
            try PG.execute(connection, "LISTEN " + PostgresBoard.identifier(channel))
            return connection
        }
    }

    /// What every listener heard: the team each notification names, and when it came.
    func report() -> FanoutViewerReport {
        var report = FanoutViewerReport()
        for (index, heard) in heard.enumerated() {
            let sightings = heard.notifications.withLock { $0 }.compactMap { heard -> FanoutViewerReport.Sighting? in
                guard let id = NotifiedCommit(text: heard.payload)?.entries.first?.id else { return nil }
                return .init(id: id, at: heard.at, woken: heard.at)
            }
            report.viewers.append(.init(index: index, batches: sightings.count, resets: 0, converged: true, sightings: sightings))
        }
        report.rssKB = (try? MemoryProbe.statusKB("VmRSS")) ?? 0
        return report
    }

    func close() {
        for connection in connections { try? connection.close().waitWithin(.long(.minutes(1))) }
    }
}
