import Foundation
import Hummingbird
import LiveResults
import ServiceLifecycle
import WorldCup

/// The one live query every browser shares: a results controller over the scoreboard, and one
/// loop that turns each of its changes into the text the page applies, once for all browsers.
///
/// Each browser reads at its own pace. The batches are numbered; each browser's stream
/// remembers the last number it wrote and takes everything after it in one go: the board first,
/// then every batch it has not had, in order (no gap, no overlap). A browser that reads slowly
/// only delays itself: the loop never waits for it. One that falls further behind than the
/// batches kept (or that was behind at a reset) gets the whole board again.
actor Board: Service {
    /// How many batches are kept for the browsers that are behind.
    static let keptBatches = 1_000

    private let controller: ResultsController<Team>
    /// The controller's changes, until `run()` takes them.
    private var changes: ResultsChanges<Team>?
    /// The number of the latest step: a batch, or a reset.
    private var version = 0
    /// The latest batches as the page reads them, oldest first, numbered without a gap.
    private var batches: [(version: Int, text: String)] = []
    /// The whole board as the page reads it, made when a browser first asks for it at a version.
    private var snapshot: (version: Int, text: String)?
    /// A wake-up per open stream, holding at most one: a stream behind takes all it missed at once.
    private var streams: [Int: AsyncStream<Void>.Continuation] = [:]
    private var nextStream = 0

    /// Reads the board (the zones as sections, the teams in the scoreboard's order) and starts
    /// following every commit to it, this process's or another's, on either store.
    init(store: any TeamStore) throws {
        let request = ResultsRequest<Team>(sortDescriptors: Team.boardOrder, fetchBatchSize: 64)
        let controller = store.makeController(fetchRequest: request, sections: Team.boardSections, cacheName: nil, cacheDirectory: nil)
        let changes = controller.changes() // before the fetch: the fetch starts tracking
        try controller.performFetch()
        self.controller = controller
        self.changes = changes
    }

    /// Follows the board until the server shuts down: each change becomes one numbered batch
    /// (after a reset, the board again) and every stream is woken. The store's reads happen
    /// here, on this actor, inside the sequence's `next()`.
    func run() async throws {
        let following = Task { try await follow() }
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await following.value
        } onCancelOrGracefulShutdown: {
            following.cancel()
        }
    }

    private func follow() async throws {
        guard let changes else { return }
        self.changes = nil
        defer { for stream in streams.values { stream.finish() } }
        for try await change in changes {
            try record(change)
        }
    }

    private func record(_ change: ResultsChange) throws {
        version += 1
        switch change {
        case .batch(let batch, _):
            batches.append((version, try BoardJSON.text(json(of: batch))))
            if batches.count > Self.keptBatches { batches.removeFirst(batches.count - Self.keptBatches) }
        case .reset:
            batches.removeAll() // every stream behind gets the board again
        }
        for stream in streams.values { stream.yield() }
    }

    /// What a stream that wrote up to `seen` (nil: nothing yet) writes next: the board, or the
    /// batches after `seen`, as one event; nil when it is up to date.
    func next(after seen: Int?) throws -> (text: String, version: Int)? {
        if let seen, seen == version { return nil }
        if let seen, let first = batches.first, first.version <= seen + 1, seen < version {
            let missed = batches[(seen + 1 - first.version)...].map(\.text)
            return ("id: \(version)\nevent: batches\ndata: [\(missed.joined(separator: ","))]\n\n", version)
        }
        // retry: a browser whose stream broke (the server restarted) tries again after a second.
        return ("retry: 1000\nid: \(version)\nevent: snapshot\ndata: \(try snapshotText())\n\n", version)
    }

    private func snapshotText() throws -> String {
        if let snapshot, snapshot.version == version { return snapshot.text }
        let sections = try controller.sections.enumerated().map { s, section in
            BoardJSON.Section(id: section.identifier, title: section.name, rows: try controller.objects(inSection: s).map { team in
                BoardJSON.Row(id: team.id ?? 0, name: team.teamName, wins: team.wins, zone: section.name)
            })
        }
        let text = try BoardJSON.text(BoardJSON.Snapshot(version: version, sections: sections))
        snapshot = (version, text)
        return text
    }

    /// A batch as the page reads it, with the values of every row it places (read now: the
    /// controller is at the result after the batch).
    private func json(of batch: ChangeBatch) throws -> BoardJSON.Batch {
        let titles = controller.sections.map(\.name)
        let sections = batch.sectionChanges.map { change in
            BoardJSON.SectionEvent(kind: change.kind.name, index: change.index, newIndex: change.newIndex, id: change.identifier, title: change.name)
        }
        let rows = try batch.rowChanges.map { change in
            let team = try change.newIndexPath.map { path in
                let team = try controller.object(at: path)
                return BoardJSON.Row(id: change.id, name: team.teamName, wins: team.wins, zone: titles[path.section])
            }
            return BoardJSON.RowEvent(kind: change.kind.name, id: change.id,
                                      from: change.indexPath.map { [$0.section, $0.row] },
                                      to: change.newIndexPath.map { [$0.section, $0.row] }, team: team)
        }
        return BoardJSON.Batch(version: version, sections: sections, rows: rows)
    }

    /// A new stream's wake-ups, and its number for `close(_:)`.
    private func open() -> (Int, AsyncStream<Void>, AsyncStream<Void>.Continuation) {
        let (wakeUps, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        nextStream += 1
        streams[nextStream] = continuation
        continuation.yield() // the stream starts by writing the board
        return (nextStream, wakeUps, continuation)
    }

    private func close(_ stream: Int) {
        streams.removeValue(forKey: stream)?.finish()
    }

    /// A browser's event stream: the board, then its changes, until the browser goes away or
    /// the server shuts down.
    nonisolated func eventStream() -> ResponseBody {
        ResponseBody { writer in
            let (stream, wakeUps, wake) = await self.open()
            do {
                // The server shuts down only once every response has ended: this one ends then.
                try await withGracefulShutdownHandler {
                    var seen: Int?
                    for await _ in wakeUps {
                        while let (text, version) = try await self.next(after: seen) {
                            try await writer.write(ByteBuffer(string: text))
                            seen = version
                        }
                    }
                } onGracefulShutdown: {
                    wake.finish()
                }
                await self.close(stream)
                try await writer.finish(nil)
            } catch {
                await self.close(stream) // the browser went away
                throw error
            }
        }
    }
}
