/// Turns the bytes a terminal sends into Unicode scalars as they arrive, one byte at a time,
/// dropping only bytes that are not valid UTF-8: "A", 0xFF, 0xFE, "B" gives "A" and "B".
///
/// A sequence split across reads waits for its next byte; a sequence cut short by a byte that
/// cannot continue it is dropped, and that byte starts afresh. Overlong forms, surrogates and
/// values past U+10FFFF are invalid, as UTF-8 defines them.
struct UTF8Input {
    /// The bytes of the sequence being read.
    private var pending: [UInt8] = []
    /// The bytes the sequence in `pending` needs in all.
    private var expected = 0

    /// Takes one byte; returns the scalar it completes, if any.
    mutating func feed(_ byte: UInt8) -> Unicode.Scalar? {
        if !pending.isEmpty {
            if Self.continues(pending, with: byte) {
                pending.append(byte)
                guard pending.count == expected else { return nil }
                defer { pending.removeAll() }
                return Self.decode(pending)
            }
            // Cut short: the partial sequence is dropped; this byte starts afresh.
            pending.removeAll()
        }
        switch byte {
        case 0x00...0x7F: return Unicode.Scalar(byte)
        case 0xC2...0xDF: expected = 2
        case 0xE0...0xEF: expected = 3
        case 0xF0...0xF4: expected = 4
        default: return nil  // a stray continuation byte, or one that never appears in UTF-8
        }
        pending = [byte]
        return nil
    }

    /// Whether `byte` may follow `sequence` (lead byte first): a continuation byte, in the
    /// narrower range the second byte has after E0, ED, F0 and F4.
    private static func continues(_ sequence: [UInt8], with byte: UInt8) -> Bool {
        guard sequence.count == 1 else { return (0x80...0xBF).contains(byte) }
        switch sequence[0] {
        case 0xE0: return (0xA0...0xBF).contains(byte)  // not overlong
        case 0xED: return (0x80...0x9F).contains(byte)  // not a surrogate
        case 0xF0: return (0x90...0xBF).contains(byte)  // not overlong
        case 0xF4: return (0x80...0x8F).contains(byte)  // not past U+10FFFF
        default: return (0x80...0xBF).contains(byte)
        }
    }

    private static func decode(_ sequence: [UInt8]) -> Unicode.Scalar? {
        let leadBits: UInt32 = switch sequence.count {
        case 2: UInt32(sequence[0] & 0x1F)
        case 3: UInt32(sequence[0] & 0x0F)
        default: UInt32(sequence[0] & 0x07)
        }
        let value = sequence.dropFirst().reduce(leadBits) { ($0 << 6) | UInt32($1 & 0x3F) }
        return Unicode.Scalar(value)
    }
}
