/// For each byte value that some slot's text holds, the set of those slots (one bit a slot),
/// and the set of slots that hold a text at all (not NULL).
///
/// A needle can only be in a value that holds each of its bytes: the AND of the needle's
/// bytes' sets, 64 slots a word, leaves the slots worth searching, and for a needle of one
/// byte it is the answer itself. A million slots take 125 KB a byte value that occurs (about
/// 2 MB for names of letters and digits).
struct ByteSlotSets {
    /// The place in `sets` of each byte value's set; -1 when no slot holds that byte.
    private var placeOfByte = [Int16](repeating: -1, count: 256)
    /// The sets of the bytes that occur, each `wordCount` words.
    private var sets: [[UInt64]] = []
    /// The slots that hold a text (the empty text included).
    private(set) var valued: [UInt64]
    /// Words in every set: room for `slotCount` slots.
    private(set) var wordCount: Int

    /// Sets with no slot in them, with room for `slotCount` slots.
    init(slotCount: Int) {
        wordCount = (slotCount + 63) / 64
        valued = [UInt64](repeating: 0, count: wordCount)
    }

    /// The sets of every slot's text, given by `value(slot)` (nil: NULL), built in one pass.
    init(slotCount: Int, value: (Int) -> UnsafeBufferPointer<UInt8>?) {
        self.init(slotCount: slotCount)
        for slot in 0..<slotCount {
            guard let bytes = value(slot) else { continue }
            insert(slot, holding: bytes)
        }
    }

    /// The set of the slots whose text holds `byte`; nil when none does.
    func slots(holding byte: UInt8) -> [UInt64]? {
        let place = placeOfByte[Int(byte)]
        return place < 0 ? nil : sets[Int(place)]
    }

    /// Makes room for `slotCount` slots.
    mutating func grow(toHold slotCount: Int) {
        let words = (slotCount + 63) / 64
        guard words > wordCount else { return }
        valued.append(contentsOf: repeatElement(0, count: words - wordCount))
        for place in sets.indices { sets[place].append(contentsOf: repeatElement(0, count: words - wordCount)) }
        wordCount = words
    }

    /// Records that `slot` holds a text of these bytes (add them to a slot with no text).
    mutating func insert(_ slot: Int, holding bytes: UnsafeBufferPointer<UInt8>) {
        let word = slot >> 6, bit: UInt64 = 1 << UInt64(slot & 63)
        valued[word] |= bit
        for byte in bytes {
            var place = Int(placeOfByte[Int(byte)])
            if place < 0 {
                place = sets.count
                placeOfByte[Int(byte)] = Int16(place)
                sets.append([UInt64](repeating: 0, count: wordCount))
            }
            sets[place][word] |= bit
        }
    }

    /// Records that `slot` no longer holds a text, whose bytes were these.
    mutating func remove(_ slot: Int, holding bytes: UnsafeBufferPointer<UInt8>) {
        let word = slot >> 6, mask = ~(UInt64(1) << UInt64(slot & 63))
        valued[word] &= mask
        for byte in bytes {
            let place = Int(placeOfByte[Int(byte)])
            if place >= 0 { sets[place][word] &= mask }
        }
    }
}
