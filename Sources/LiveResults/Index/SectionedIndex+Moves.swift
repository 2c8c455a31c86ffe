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
    /// weight (ties: the longest, then the one whose elements come first). Weights are not
    /// negative. Costs O(s log s) for s values: each value's best run ending before it is read
    /// from a tree of prefix maxima over the values' ranks, so that the many
    /// sections surviving a related row's change cost no more than their sort.
    static func heaviestIncreasingRun<Weight: Comparable & AdditiveArithmetic>(_ values: [Int], weights: [Weight]) -> [Int] {
        guard !values.isEmpty else { return [] }
        let ranked = Array(Set(values)).sorted()
        let rank = Dictionary(uniqueKeysWithValues: ranked.enumerated().map { ($1, $0) })
        // The best run ending at each element, scored by weight then count; `previous` links it.
        var best: [(weight: Weight, count: Int)] = []
        best.reserveCapacity(values.count)
        var previous = Array(repeating: -1, count: values.count)
        /// Whether the run ending at `i` is preferred to the one ending at `j` (none: -1): the
        /// higher score, and of equal ones the earlier element, as a scan from the left keeps.
        func beats(_ i: Int, _ j: Int) -> Bool {
            j < 0 || best[i] > best[j] || (best[i] == best[j] && i < j)
        }
        // A Fenwick tree over ranks: node k holds the preferred run ending at a rank of its range.
        var tree = Array(repeating: -1, count: ranked.count + 1)
        for i in values.indices {
            let r = rank[values[i]]!
            var predecessor = -1
            var k = r                  // ranks below r: strictly smaller values
            while k > 0 {
                if tree[k] >= 0, beats(tree[k], predecessor) { predecessor = tree[k] }
                k -= k & -k
            }
            if predecessor >= 0 {
                best.append((weight: best[predecessor].weight + weights[i], count: best[predecessor].count + 1))
                previous[i] = predecessor
            } else {
                best.append((weight: weights[i], count: 1))
            }
            k = r + 1
            while k < tree.count {
                if beats(i, tree[k]) { tree[k] = i }
                k += k & -k
            }
        }
        var i = 0
        for j in values.indices where best[j] > best[i] { i = j }
        var run: [Int] = []
        while i >= 0 {
            run.append(values[i])
            i = previous[i]
        }
        return run.reversed()
    }
}
