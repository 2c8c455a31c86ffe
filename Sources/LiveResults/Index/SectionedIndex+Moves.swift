import Foundation

// Which rows a batch reports as moves: rule 2 of the semantics, by relative order.

extension SectionedIndex {
    /// Of the changed rows that stay in their (surviving) section, the fewest that must be
    /// reported as moves so that a table view, keeping every other row in its relative order,
    /// ends with the new result (rule 2 of the semantics).
    ///
    /// The unchanged rows of a section keep their order, so they cut it into gaps; a changed row
    /// must move when it lands in another gap (another number of unchanged rows before it).
    /// Within one gap, the longest run of rows already in order stays, the rest move.
    /// `changedOld` and `changedNew` are the old and new places of every changed row.
    /// Costs O(k log k) for k changed rows.
    static func rowsThatMustMove(_ staying: [(id: RecordID, old: IndexPath, new: IndexPath)], changedOld: [IndexPath], changedNew: [IndexPath]) -> Set<RecordID> {
        guard !staying.isEmpty else { return [] }
        let oldSorted = changedOld.sorted()
        let newSorted = changedNew.sorted()
        /// The number of paths in `sorted` in the same section as `path` and before it.
        func changedBefore(_ path: IndexPath, in sorted: [IndexPath]) -> Int {
            func firstIndex(notBefore target: IndexPath) -> Int {
                var low = 0, high = sorted.count
                while low < high {
                    let mid = (low + high) / 2
                    if sorted[mid] < target { low = mid + 1 } else { high = mid }
                }
                return low
            }
            return firstIndex(notBefore: path) - firstIndex(notBefore: IndexPath(row: 0, section: path.section))
        }
        var mustMove = Set<RecordID>()
        // Rows grouped by their section and gap, when the gap did not change.
        var gaps: [[Int]: [(id: RecordID, oldRow: Int, newRow: Int)]] = [:]
        for row in staying {
            let oldGap = row.old.row - changedBefore(row.old, in: oldSorted)
            let newGap = row.new.row - changedBefore(row.new, in: newSorted)
            if oldGap != newGap {
                mustMove.insert(row.id)
            } else {
                gaps[[row.new.section, newGap], default: []].append((row.id, row.old.row, row.new.row))
            }
        }
        for (_, rows) in gaps where rows.count > 1 {
            let byOld = rows.sorted { $0.oldRow < $1.oldRow }
            let kept = Set(longestIncreasingRun(byOld.map(\.newRow)).map { byOld[$0].id })
            for row in byOld where !kept.contains(row.id) { mustMove.insert(row.id) }
        }
        return mustMove
    }

    /// The indices of a longest strictly increasing subsequence of `values` (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []          // index into values of the smallest tail of each length
        var previous = [Int](repeating: -1, count: values.count)
        for (i, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if values[tails[mid]] < value { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[i] = tails[low - 1] }
            if low == tails.count { tails.append(i) } else { tails[low] = i }
        }
        var run: [Int] = []
        var i = tails.last ?? -1
        while i >= 0 {
            run.append(i)
            i = previous[i]
        }
        return run.reversed()
    }

    /// The elements of a strictly increasing subsequence of `values` with the largest total
    /// weight (ties: the longest). Quadratic, for the handful of sections that survive a batch.
    static func heaviestIncreasingRun(_ values: [Int], weights: [Int]) -> [Int] {
        guard !values.isEmpty else { return [] }
        // Score each choice by weight first, then by count, so ties keep more sections.
        var best = values.indices.map { (weight: weights[$0], count: 1) }
        var previous = Array(repeating: -1, count: values.count)
        for i in values.indices {
            for j in 0..<i where values[j] < values[i] {
                let candidate = (weight: best[j].weight + weights[i], count: best[j].count + 1)
                if candidate > best[i] {
                    best[i] = candidate
                    previous[i] = j
                }
            }
        }
        var i = values.indices.max { best[$0] < best[$1] } ?? 0
        var run: [Int] = []
        while i >= 0 {
            run.append(values[i])
            i = previous[i]
        }
        return run.reversed()
    }
}
