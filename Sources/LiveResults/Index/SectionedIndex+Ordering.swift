// Where a row or a section belongs in an index: the searches that place a changed row,
// and the check that sections follow one another in result order.

extension SectionedIndex {
    /// The first index whose row does not sort before the row in `slot`; with `skipped`, as
    /// if the element at that index were absent. `slots` are the rows of one section, the
    /// section of the row in `slot`.
    ///
    /// With `near`, the search starts there and widens in steps that double: a row that moved
    /// k places costs about 2·log2(k) comparisons, all of rows near its old place (in memory
    /// too, after a fetch), instead of a search of the whole section whose probes each miss
    /// the processor's caches in a section of a million rows.
    func insertionIndex(of slot: Int, in slots: FlatArray<Int32>, skipping skipped: Int? = nil, near start: Int? = nil) -> Int {
        let count = slots.count - (skipped == nil ? 0 : 1)
        func sortsBefore(_ position: Int) -> Bool {
            let index = skipped.map { position >= $0 ? position + 1 : position } ?? position
            return store.compare(Int(slots[index]), slot, inSameSection: true) < 0
        }
        // The answer is in low...high: every position before low sorts before the row, and
        // none from high on.
        var low = 0
        var high = count
        if let start = start.map({ min(max($0, 0), count) }) {
            var step = 1
            if start < count && sortsBefore(start) {
                low = start + 1
                while low < count {
                    let probe = min(start + step, count - 1)
                    if !sortsBefore(probe) {
                        high = probe
                        break
                    }
                    low = probe + 1
                    step *= 2
                }
            } else {
                high = start
                while high > 0 {
                    let probe = max(start - step, 0)
                    if sortsBefore(probe) {
                        low = probe + 1
                        break
                    }
                    high = probe
                    step *= 2
                }
            }
        }
        while low < high {
            let mid = (low + high) / 2
            if sortsBefore(mid) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The index at which a new section starting with the row in `slot` belongs.
    func sectionInsertionIndex(of slot: Int) -> Int {
        var low = 0
        var high = sections.count
        while low < high {
            let mid = (low + high) / 2
            if store.compare(Int(sections[mid].slots[0]), slot) < 0 { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Every section's rows must sort after the previous section's rows.
    func checkSectionOrder() throws {
        guard !isUnsectioned else { return }
        for s in sections.indices.dropFirst() {
            let last = Int(sections[s - 1].slots[sections[s - 1].slots.count - 1])
            let first = Int(sections[s].slots[0])
            if store.compare(last, first) > 0 {
                throw Self.outOfOrder(sections[s].name, id: store.ids[first])
            }
        }
    }
}
