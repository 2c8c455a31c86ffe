import Foundation

/// The acknowledged win counts that tap-loop prints (one line per tap, after its commit),
/// read as they come from its standard output.
public final class TapAcknowledgements {
    private let pipe: Pipe
    private var pending = Data()
    /// The last win count read.
    public private(set) var last = 0
    /// How many acknowledged taps were read.
    public private(set) var count = 0

    public init(_ pipe: Pipe) { self.pipe = pipe }

    /// Reads until at least `total` taps were acknowledged; returns the last win count.
    /// Throws when tap-loop ends first.
    @discardableResult
    public func wait(forTotal total: Int) throws -> Int {
        while count < total {
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw TapLoopEnded(count: count) }
            pending.append(chunk)
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                if let wins = Int(String(decoding: pending[pending.startIndex..<end], as: UTF8.self)) {
                    last = wins
                    count += 1
                }
                pending.removeSubrange(pending.startIndex...end)
            }
        }
        return last
    }

    /// tap-loop ended before the taps waited for.
    public struct TapLoopEnded: Error, CustomStringConvertible {
        public let count: Int
        public var description: String { "tap-loop ended after \(count) acknowledged taps" }
    }
}
