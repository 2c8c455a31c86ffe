import Foundation
import Hummingbird
import LiveResults
import ServiceLifecycle
import Synchronization
import WorldCup

/// The one live query every browser shares: LiveResults' `LiveQuery` over the scoreboard, one
/// results controller and one loop for all browsers, each subscribed at its own pace.
///
/// Each browser's stream writes the board, then each element its subscription gives: a batch
/// from the version it last wrote (no gap, no overlap), one batch however many commits a slow
/// browser missed. A slow browser delays only itself; one that falls far behind (or was behind
/// at a reset) gets the whole board again.
struct Board: Service {
    private let query: LiveQuery<Team, BoardJSON.Row>
    private let texts = EventTexts()

    /// Reads the board (the zones as sections, the teams in the scoreboard's order) and starts
    /// following every commit to it, this process's or another's, on either store. The fetch
    /// runs on the controller's own thread while this task is suspended: no thread of Swift's
    /// cooperative pool blocks on the database.
    init(store: any TeamStore) async throws {
        let request = ResultsRequest<Team>(sortDescriptors: Team.boardOrder, fetchBatchSize: 64)
        let controller = store.makeController(fetchRequest: request, sections: Team.boardSections, cacheName: nil, cacheDirectory: nil)
        query = try await LiveQuery(controller) { team in BoardJSON.Row(id: team.id ?? 0, name: team.teamName, wins: team.wins) }
    }

    /// Follows the board until the server shuts down; every stream ends then.
    func run() async throws {
        let following = Task { try await query.run() }
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await following.value
        } onCancelOrGracefulShutdown: {
            following.cancel()
        }
    }

    /// A browser's event stream: the board, then its changes, until the browser goes away or
    /// the server shuts down.
    func eventStream() -> ResponseBody {
        ResponseBody { writer in
            let subscription = query.subscribe()
            // The server shuts down only once every response has ended: this one ends then.
            try await withGracefulShutdownHandler {
                for try await update in subscription {
                    try await writer.write(try texts.event(update))
                }
            } onGracefulShutdown: {
                subscription.cancel()
            }
            try await writer.finish(nil)
        }
    }
}

/// The events made last, by the versions their elements span. Browsers that keep up receive
/// the same element (the same batch between the same versions, or the board at one version):
/// it is encoded once, and the same bytes are written to all of them.
final class EventTexts: Sendable {
    private struct Span: Hashable {
        /// The version a batch starts from; nil for the board.
        var from: Int?
        var to: Int
    }

    /// How many texts are kept: the steps browsers at about the same pace share.
    private static let kept = 64
    private let made = Mutex<[Span: ByteBuffer]>([:])

    func event(_ update: LiveQueryUpdate<BoardJSON.Row>) throws -> ByteBuffer {
        let span = switch update {
        case .snapshot(let snapshot): Span(from: nil, to: snapshot.version)
        case .batch(let batch): Span(from: batch.previousVersion, to: batch.version)
        }
        if let event = made.withLock({ $0[span] }) { return event }
        let event = ByteBuffer(string: try BoardJSON.event(update))
        made.withLock { made in
            if made.count >= Self.kept { made.removeAll(keepingCapacity: true) }
            made[span] = event
        }
        return event
    }
}
