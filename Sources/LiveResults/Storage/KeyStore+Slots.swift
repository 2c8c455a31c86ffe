// The map from ids to slots: a dense table (id → slot + 1, 0 for absent) while ids are dense,
// as rowids usually are, and a dictionary otherwise; how the table is built at once, checked
// when a cache file brings it, and read apart from the store (`SlotMap`).

extension KeyStore {
    /// Whether an id fits the dense table of a store of `rowCount` rows: ids up to a few
    /// times the number of rows (and any under 65,536) do.
    @inline(__always)
    static func isDenseID(_ id: Int64, rowCount: Int) -> Bool {
        id < Int64(max(1 << 16, 4 * (rowCount + 1)))
    }

    /// The table from id to slot + 1 (0: absent) of ids stored in slots 0, 1, … in this order;
    /// nil when they are too sparse for a table, and .some(nil) when an id repeats.
    static func denseSlots(of ids: PackedIntegers) -> FlatArray<Int32>?? {
        // One pass for the bounds and one to map ids, each choosing the width once.
        guard let bounds = ids.bounds, bounds.lowerBound >= 0, isDenseID(bounds.upperBound, rowCount: ids.count) else { return nil }
        var dense = FlatArray<Int32>(count: Int(bounds.upperBound) + 1) { $0.initialize(repeating: 0) }
        var repeated = false
        dense.withUnsafeMutableBufferPointer { dense in
            ids.forEach { slot, id in
                if dense[Int(id)] != 0 { repeated = true }
                dense[Int(id)] = Int32(slot + 1)
            }
        }
        return .some(repeated ? nil : dense)
    }

    /// Whether `table` can be `denseSlots(of: ids)`: as long as the largest id needs, with
    /// one entry per id, each naming a slot there is. (Reading it in order is cheap; checking
    /// each entry against `ids` would read all over it again.)
    static func isDenseTable(_ table: FlatArray<Int32>, of ids: PackedIntegers) -> Bool {
        guard let bounds = ids.bounds, bounds.lowerBound >= 0, Int64(table.count) == bounds.upperBound + 1 else { return false }
        // Without a branch an entry (vectorized), on several threads: ten million entries are
        // checked at a load. A chunk with an entry out of range counts -1.
        let limit = UInt32(ids.count)
        let used = table.withUnsafeBufferPointer { table in
            ParallelChunks.map(ParallelChunks.ranges(table.count, parallel: table.count >= ParallelChunks.parallelItems)) { chunk in
                var used = 0, outside: UInt32 = 0
                for entry in table[chunk] {
                    used &+= entry == 0 ? 0 : 1
                    outside |= UInt32(bitPattern: entry) > limit ? 1 : 0 // a negative entry too
                }
                return outside == 0 ? used : -1
            }
        }
        return !used.contains(-1) && used.reduce(0, +) == ids.count
    }

    /// An id's slot in the dense table (slot + 1, 0 for absent) or, when there is one, the dictionary.
    @inline(__always)
    static func slot(for id: RecordID, dense: FlatArray<Int32>, sparse: [RecordID: Int32]?) -> Int? {
        if let sparse { return sparse[id].map(Int.init) }
        guard id >= 0, id < dense.count else { return nil }
        let stored = dense[Int(id)]
        return stored == 0 ? nil : Int(stored - 1)
    }

    /// The slot of each id as it is now, apart from the store: a copy that later changes of
    /// the store do not reach (the store's next change of an id's slot copies its table once).
    struct SlotMap: @unchecked Sendable {
        private let dense: FlatArray<Int32>
        private let sparse: [RecordID: Int32]?
        /// How many slots the store had.
        let slotCount: Int

        init(dense: FlatArray<Int32>, sparse: [RecordID: Int32]?, slotCount: Int) {
            self.dense = dense
            self.sparse = sparse
            self.slotCount = slotCount
        }

        func slot(for id: RecordID) -> Int? {
            KeyStore.slot(for: id, dense: dense, sparse: sparse)
        }
    }
}
