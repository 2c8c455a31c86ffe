import Foundation

// Which rows a batch reports as moves: rule 2 of the semantics, by relative order; and which
// sections (step 4 of `apply`): rule 12.

extension SectionedIndex {
    /// What happens to the sections: identity is the section value.
    struct SectionPlan {
        /// Sections in both results, by old and new index.
        var survivors: [(old: Int, new: Int)]
        /// The old indices of the survivors that keep their place among the others.
        var stable: Set<Int>
        /// Old indices of deleted sections; new indices of inserted ones (through a relationship,
        /// the survivors that are not stable are moved instead).
        var deleted: Set<Int>
        var inserted: Set<Int>
    }

    /// What a run of surviving sections that keep their place weighs through a relationship,
    /// compared field by field: every section whose related row did not change stays (rule 12:
    /// only changed sections are reported moved; the unchanged ones keep their relative order,
    /// so one run holds them all), then the most sections stay, then those whose order did not
    /// change, then those holding the most rows. (Counts, not bits of one integer, whose high
    /// bits overflowed once enough sections survived.)
    struct StayingWeight: Comparable, AdditiveArithmetic {
        var unchanged = 0
        var sections = 0
        var orderKept = 0
        var rows = 0

        static let zero = StayingWeight()

        static func < (a: Self, b: Self) -> Bool {
            (a.unchanged, a.sections, a.orderKept, a.rows) < (b.unchanged, b.sections, b.orderKept, b.rows)
        }

        static func + (a: Self, b: Self) -> Self {
            Self(unchanged: a.unchanged + b.unchanged, sections: a.sections + b.sections, orderKept: a.orderKept + b.orderKept, rows: a.rows + b.rows)
        }

        static func - (a: Self, b: Self) -> Self {
            Self(unchanged: a.unchanged - b.unchanged, sections: a.sections - b.sections, orderKept: a.orderKept - b.orderKept, rows: a.rows - b.rows)
        }
    }

    /// Step 4: a surviving section whose order relative to the others changed is moved, its
    /// rows with it, through a relationship (its identity is its key: rule 12; as few as
    /// possible move, then those holding the most rows stay). Keyed by a column's value, it
    /// cannot be expressed as a move (NSFetchedResultsController has none), so it is deleted
    /// and inserted again, with all its rows, and the sections holding the most untouched rows
    /// keep their place.
    func planSections(before: Before, changed: [RecordID: RowKey?]) -> SectionPlan {
        // A section keeps its number for as long as the store lives: found in O(1), not by a
        // search of the old sections for each new one.
        let oldPlace = Dictionary(uniqueKeysWithValues: before.sections.enumerated().map { ($1.number, $0) })
        let survivors = sections.indices.compactMap { new in oldPlace[sections[new].number].map { (old: $0, new: new) } }
        let oldIndices = survivors.map(\.old)
        let stable: Set<Int>
        if zip(oldIndices, oldIndices.dropFirst()).allSatisfy({ $0 < $1 }) {
            stable = Set(oldIndices)
        } else if isRelated {
            // Sections whose related row did not change stay; of the others, as few moves as
            // possible, then those whose order did not change stay (the one reordered moves,
            // not the one it swapped with), then the most rows.
            let weights = survivors.map { survivor in
                let old = before.sections[survivor.old].row, new = store.sectionRow(sections[survivor.new].number)
                let orderKept = old.map { old in new.map { $0.order == old.order } ?? false } ?? false
                return StayingWeight(unchanged: old != nil && old == new ? 1 : 0, sections: 1, orderKept: orderKept ? 1 : 0,
                                     rows: sections[survivor.new].slots.count)
            }
            stable = Set(Self.heaviestIncreasingRun(oldIndices, weights: weights))
        } else {
            // Counting untouched rows costs O(n), so only when sections did trade places (rare).
            let weights = survivors.map { survivor in
                sections[survivor.new].slots.reduce(0) { $0 + (changed[store.ids[Int($1)]] == nil ? 1 : 0) }
            }
            stable = Set(Self.heaviestIncreasingRun(oldIndices, weights: weights))
        }
        var deleted = Set(before.sections.indices)
        var inserted = Set(sections.indices)
        // Through a relationship, a survivor out of place is moved, not deleted and inserted.
        for survivor in survivors where isRelated || stable.contains(survivor.old) {
            deleted.remove(survivor.old)
            inserted.remove(survivor.new)
        }
        return SectionPlan(survivors: survivors, stable: stable, deleted: deleted, inserted: inserted)
    }

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
