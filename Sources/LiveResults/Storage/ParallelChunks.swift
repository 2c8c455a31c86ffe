import Foundation

/// A pass over many items cut in chunks that run on several threads at once: the filter's
/// passes over a million rows (its search, the view of the rows that pass), which must
/// answer within a keypress, and those of a section cache's load.
enum ParallelChunks {
    /// From how many items a pass runs on several threads.
    static let parallelItems = 1 << 17

    /// The processors this process may use, read once: `activeProcessorCount` reads the
    /// cgroup's files at every call (a tenth of the processor time of a filter key at a million rows).
    static let processors = ProcessInfo.processInfo.activeProcessorCount

    /// `0..<count` cut in consecutive chunks: one a processor (at most 4) when `parallel`,
    /// else the whole range.
    static func ranges(_ count: Int, parallel: Bool) -> [Range<Int>] {
        let chunks = parallel ? max(1, min(4, processors, count)) : 1
        return (0..<chunks).map { chunk in (count * chunk / chunks)..<(count * (chunk + 1) / chunks) }
    }

    /// Calls `body` on each range, on several threads at once when there is more than one;
    /// returns what each call returned, in the order of `ranges`.
    static func map(_ ranges: [Range<Int>], _ body: (Range<Int>) -> Int) -> [Int] {
        guard ranges.count > 1 else { return ranges.map(body) }
        var results = [Int](repeating: 0, count: ranges.count)
        results.withUnsafeMutableBufferPointer { results in
            nonisolated(unsafe) let results = results
            withoutActuallyEscaping(body) { body in
                nonisolated(unsafe) let body = body
                DispatchQueue.concurrentPerform(iterations: ranges.count) { chunk in
                    results[chunk] = body(ranges[chunk])
                }
            }
        }
        return results
    }

    /// Calls `body` on each of `ranges(count, parallel:)`, on several threads at once when
    /// `parallel` (the passes of a cache load; by default from `parallelItems` items on).
    static func forEach(_ count: Int, parallel: Bool? = nil, _ body: (Range<Int>) -> Void) {
        _ = map(ranges(count, parallel: parallel ?? (count >= parallelItems))) { chunk in
            body(chunk)
            return 0
        }
    }
}
