// Views: some of an index's rows, as an index that shares the index's key store instead of
// copying it. A filter's result is one.
//
// A view holds only its sections' slots (4 bytes a row). It reads ids and keys through the
// store of the index it was made from, which its owner lends it for each use (`lending`), and
// never writes to that store. Its changes come in two steps around the index's own apply:
// `prepareViewChange` while the store still holds the old keys (where the changed rows were),
// then `applyViewChange` once the index has stored the new ones.

extension SectionedIndex {
    /// A view of the rows whose slot's bit is set in `bits` (bit `slot % 64` of word
    /// `slot / 64`), in the same order, with the sections that keep a row (an unsectioned
    /// index keeps its one section). It shares this index's store: 4 bytes a kept row, nothing
    /// copied. Slots in runs (as a fetch leaves them) are decided 64 at a time, other slots
    /// one at a time (`keep`): a pass over the bits plus a write a kept row.
    ///
    /// On one thread: the work is a light pass over memory, and on two hyperthreads of one
    /// core (the kind of machine this was measured on) it took longer than on one.
    func view(keepingSlotsIn bits: [UInt64]) -> SectionedIndex {
        var view = self
        view.isView = true
        view.sections = []
        bits.withUnsafeBufferPointer { bits in
            for section in sections {
                var kept = section
                kept.slots = Self.slots(section.slots, keptBy: bits)
                kept.baseSlot = nil // A view's places do not follow its slots.
                if !kept.slots.isEmpty || isUnsectioned { view.sections.append(kept) }
            }
        }
        view.reindexSections()
        view.checkInvariantsInDebug()
        return view
    }

    /// The share of the rows whose slots are in runs of 64 (`keep`), estimated from one block
    /// in 16 of each section: what a view made from this index costs, against one made from
    /// fewer rows not in runs (a narrower view).
    var shareInRuns: Double {
        var sampled = 0, runs = 0
        for section in sections {
            section.slots.withUnsafeBufferPointer { slots in
                for block in stride(from: 0, to: slots.count - 63, by: 64 * 16) {
                    sampled += 1
                    if Self.isRun(slots, from: block) { runs += 1 }
                }
            }
        }
        return sampled == 0 ? 0 : Double(runs) / Double(sampled)
    }

    /// Whether the 64 slots from `block` are consecutive (each one more than the one before).
    @inline(__always)
    private static func isRun(_ slots: UnsafeBufferPointer<Int32>, from block: Int) -> Bool {
        let first = slots[block]
        var differs: Int32 = 0
        for offset in 0..<64 { differs |= slots[block &+ offset] ^ (first &+ Int32(truncatingIfNeeded: offset)) }
        return differs == 0
    }

    /// The slots whose bit is set, in order. When it keeps under a quarter of `slots`, the
    /// kept slots are copied into an array of their size, so that a narrow view does not
    /// hold the room of a wide one.
    private static func slots(_ slots: FlatArray<Int32>, keptBy bits: UnsafeBufferPointer<UInt64>) -> FlatArray<Int32> {
        guard !slots.isEmpty else { return [] }
        let kept = slots.withUnsafeBufferPointer { slots in
            FlatArray<Int32>(unsafeUninitializedCapacity: slots.count) { buffer, initialized in
                initialized = keep(slots, keptBy: bits, into: buffer.baseAddress!)
            }
        }
        guard kept.count < slots.count / 4 else { return kept }
        return kept.withUnsafeBufferPointer { FlatArray($0) }
    }

    /// Writes the slots whose bit is set, in order, from `output` (room for `slots.count`);
    /// returns how many.
    ///
    /// The slots are taken 64 at a time. A run of 64 consecutive slots (the usual case: a
    /// fetch gives slots in result order, and a tap shifts the rows it passes by one place,
    /// keeping them consecutive) is decided by the 64 bits that start at its first slot,
    /// without reading a word of `bits` a slot; the kept slots are then written eight bits at
    /// a time (`BitOffsets`). Other slots are decided one by one, without a branch: each slot
    /// is written, and the next overwrites it unless it was kept.
    @inline(__always)
    private static func keep(_ slots: UnsafeBufferPointer<Int32>, keptBy bits: UnsafeBufferPointer<UInt64>, into output: UnsafeMutablePointer<Int32>) -> Int {
        @inline(__always) func word(_ index: Int) -> UInt64 { index < bits.count ? bits[index] : 0 }
        var written = 0
        @inline(__always) func keepOneByOne(_ range: Range<Int>) {
            for slot in slots[range] {
                output[written] = slot
                written &+= Int(truncatingIfNeeded: word(Int(slot) &>> 6) &>> UInt64(slot & 63) & 1)
            }
        }
        BitOffsets.table.withUnsafeBufferPointer { offsets in
            var block = 0
            while block &+ 64 <= slots.count {
                let first = slots[block]
                if isRun(slots, from: block) {
                    let index = Int(first) &>> 6, shift = UInt64(first & 63)
                    let kept = shift == 0 ? word(index) : word(index) &>> shift | word(index &+ 1) &<< (64 &- shift)
                    // Each of the eight writes ends at most at this block's end: `written` is
                    // at most the number of slots before those eight bits.
                    written = BitOffsets.write(kept, from: first, into: output, at: written, offsets: offsets)
                } else {
                    keepOneByOne(block..<block &+ 64)
                }
                block &+= 64
            }
            keepOneByOne(block..<slots.count)
        }
        return written
    }

    /// The view with `store` lent to it (the store of the index it was made from, as it is now).
    func lending(_ store: KeyStore) -> SectionedIndex {
        var view = self
        view.store = store
        return view
    }

    /// The view without its store, to be kept while the index changes: a view that kept a
    /// reference to the store would make the index copy the whole store at its next change.
    var parked: SectionedIndex {
        var view = self
        view.store = KeyStore(ascending: store.ascending)
        return view
    }

    /// What a commit changes in a view, read before the shared store changes: each changed
    /// row's new key in the view (nil: it leaves or stays out) and where the rows were.
    struct ViewChange {
        var changed: [RecordID: RowKey?]
        var before: Before
    }

    /// Step 1 and 2 of a view's change (see `apply`), while the store still holds the old
    /// keys: `changes` are the rows' keys in the view (nil for a row that is not in it).
    func prepareViewChange(_ changes: [(id: RecordID, key: RowKey?)]) -> ViewChange {
        var newKeys: [RecordID: RowKey?] = [:]
        for change in changes { newKeys[change.id] = change.key }
        let changed = newKeys.filter { id, key in key != nil || indexPath(for: id) != nil }
        return ViewChange(changed: changed, before: Before(self, changed: changed))
    }

    /// Steps 3 to 6 of a view's change, once the index applied the commit to the store: the
    /// rows leave their old places and take their new ones, and the batch says so in the
    /// view's index spaces. (A view of an index in order is in order: no section can split.)
    mutating func applyViewChange(_ change: ViewChange, sectionName: (ColumnValue) -> String) -> ChangeBatch {
        precondition(isView, "only a view takes a prepared change")
        // Through a relationship, related rows may have changed without any row.
        guard !change.changed.isEmpty || isRelated else { return ChangeBatch() }
        defer { checkInvariantsInDebug() }
        place(change.changed, oldPaths: change.before.paths, sectionName: sectionName)
        let plan = planSections(before: change.before, changed: change.changed)
        let rows = classifyRows(change.changed, before: change.before, plan: plan)
        return assemble(plan, rows: rows, before: change.before)
    }
}

/// The positions of the bits set in each byte, as eight lanes: what turns a word of 64 bits
/// into the numbers of its set bits eight bits at a time, one table read and one write of
/// eight numbers each, however many bits are set, instead of a loop a kept row.
enum BitOffsets {
    /// For each byte, the positions (0 to 7) of its set bits in order; the other lanes are 0.
    static let table: [SIMD8<Int32>] = (0..<256).map { byte in
        var lanes = SIMD8<Int32>(repeating: 0)
        var lane = 0
        for bit in 0..<8 where byte & (1 << bit) != 0 {
            lanes[lane] = Int32(bit)
            lane += 1
        }
        return lanes
    }

    /// Writes `first + i` for each bit `i` set in `bits`, in order, from `output + written`;
    /// returns `written` plus the number of bits set. It writes eight numbers for each byte of
    /// `bits` (some overwritten after), so `output` must have room for `written` plus 64.
    @inline(__always)
    static func write(_ bits: UInt64, from first: Int32, into output: UnsafeMutablePointer<Int32>, at written: Int,
                      offsets: UnsafeBufferPointer<SIMD8<Int32>>) -> Int {
        var written = written, rest = bits
        var base = SIMD8<Int32>(repeating: first)
        while rest != 0 {
            let byte = Int(truncatingIfNeeded: rest & 0xFF)
            UnsafeMutableRawPointer(output + written).storeBytes(of: offsets[byte] &+ base, as: SIMD8<Int32>.self)
            written &+= byte.nonzeroBitCount
            rest &>>= 8
            base &+= SIMD8(repeating: 8)
        }
        return written
    }
}
