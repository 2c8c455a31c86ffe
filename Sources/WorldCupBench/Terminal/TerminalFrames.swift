import Foundation

/// One frame as the terminal received it: every byte the program wrote for it, and when the
/// first and the last of them arrived (monotonic nanoseconds).
struct TerminalFrame {
    var bytes: [UInt8]
    var firstByteAt: UInt64
    var lastByteAt: UInt64
}

/// Decides when a frame is complete, from the output and its arrival times alone.
///
/// curses writes a frame in one burst (`doupdate` flushes once, in one or a few `write`s);
/// the program then waits for input. So a frame is complete once output has arrived, it holds
/// `marker` (when one is given: text every complete frame ends with, such as the footer), and
/// nothing more has arrived for `quietNanoseconds`. The frame's time is that of its last byte,
/// so the quiet window costs waiting time but is not part of the measured latency.
/// A value type with no I/O: the reader feeds it bytes and clock readings.
struct FrameAssembler {
    var quietNanoseconds: UInt64
    var marker: [UInt8]?
    private(set) var bytes: [UInt8] = []
    private(set) var firstByteAt: UInt64?
    private(set) var lastByteAt: UInt64?
    private(set) var markerSeen: Bool

    init(quietNanoseconds: UInt64, marker: String? = nil) {
        self.quietNanoseconds = quietNanoseconds
        self.marker = marker.map { Array($0.utf8) }
        markerSeen = marker == nil
    }

    /// Takes bytes read at `time`.
    mutating func receive(_ chunk: [UInt8], at time: UInt64) {
        guard !chunk.isEmpty else { return }
        let searchFrom = max(0, bytes.count - (marker?.count ?? 0) + 1)
        bytes += chunk
        if firstByteAt == nil { firstByteAt = time }
        lastByteAt = time
        if !markerSeen, let marker {
            markerSeen = Self.contains(bytes[searchFrom...], marker)
        }
    }

    /// The complete frame, if the output has been quiet long enough by `now`.
    func frame(now: UInt64) -> TerminalFrame? {
        guard markerSeen, let firstByteAt, let lastByteAt, now &- lastByteAt >= quietNanoseconds else { return nil }
        return TerminalFrame(bytes: bytes, firstByteAt: firstByteAt, lastByteAt: lastByteAt)
    }

    /// How long to wait for more output before `frame(now:)` can answer (nil: until bytes come).
    func wait(now: UInt64) -> UInt64? {
        guard markerSeen, let lastByteAt else { return nil }
        let quietSoFar = now &- lastByteAt
        return quietSoFar >= quietNanoseconds ? 0 : quietNanoseconds - quietSoFar
    }

    private static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var start = haystack.startIndex
        while let found = haystack[start...].firstIndex(of: first) {
            guard found + needle.count <= haystack.endIndex else { return false }
            if haystack[found..<found + needle.count].elementsEqual(needle) { return true }
            start = found + 1
        }
        return false
    }
}

extension PseudoTerminal {
    /// Reads the next frame: waits up to `timeout` seconds for output to start (and for the
    /// marker), then until it has been quiet for `quiet` seconds. Nil if no complete frame
    /// came in time; throws if the program ended first.
    func readFrame(quiet: Double, marker: String? = nil, timeout: Double) throws -> TerminalFrame? {
        var assembler = FrameAssembler(quietNanoseconds: UInt64(quiet * 1e9), marker: marker)
        let deadline = Monotonic.now() + UInt64(timeout * 1e9)
        while true {
            let now = Monotonic.now()
            if let frame = assembler.frame(now: now) { return frame }
            // Once the frame is under way, its quiet window is waited out even past the deadline.
            let wait: UInt64
            if let quietLeft = assembler.wait(now: now) {
                wait = quietLeft
            } else if now < deadline {
                wait = deadline - now
            } else {
                return nil
            }
            switch read(timeoutNanoseconds: wait) {
            case .bytes(let chunk, let time): assembler.receive(chunk, at: time)
            case .timeout: continue
            case .closed:
                let status = waitForExit(seconds: 1) ? exitCode.map { "status \($0)" } ?? "a signal" : "no exit yet"
                throw BenchError("The scoreboard ended before drawing (\(status)); its last output: \(Self.printable(assembler.bytes.suffix(300))).")
            }
        }
    }

    /// Bytes as readable text: escapes as `\e`, other controls as `^X`.
    static func printable<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        String(decoding: bytes, as: UTF8.self).unicodeScalars.map { scalar -> String in
            switch scalar.value {
            case 0x1b: return "\\e"
            case 0..<0x20: return "^" + String(Character(Unicode.Scalar(scalar.value + 64)!))
            default: return String(scalar)
            }
        }.joined()
    }
}
