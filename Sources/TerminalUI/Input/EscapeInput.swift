import CNCursesW

/// What an Esc byte means, from what the terminal sent with it.
///
/// Curses assembles the key sequences its terminal description knows (arrows, Home, F1)
/// with its own timing: after an Esc it waits the escape delay for the rest. When the bytes
/// that came within that delay make no key it knows, it returns the Esc alone and keeps the
/// rest for the next reads. So an Esc followed at once by more input is not the Esc key: it
/// is Alt with a key (xterm and most terminals send Alt-x as Esc then "x"), or a sequence the
/// description does not list (`ESC [ 1 ; 5 H`). Both are read to their end and ignored,
/// never taken for Esc, which cancels.
enum EscapeInput {
    static let escape: Int32 = 27
    /// A sequence longer than this is not one a terminal sends for a key: reading stops.
    static let maximumSequenceLength = 32

    /// The key an Esc starts. `next` returns the next byte or key code already read within
    /// the escape delay (nil when none came); `pushBack` returns one for the next read.
    ///
    /// - Esc alone, or Esc before another Esc: `.escape` (the second is read again, so Esc Esc
    ///   is two presses, and Esc before a known sequence leaves that sequence whole).
    /// - Esc "[" …, a control sequence (CSI): read up to its final byte, `.unknown`.
    /// - Esc "O" and one byte (SS3): `.unknown`.
    /// - Esc before a resize or a mouse report: `.escape`, and the event is read again.
    /// - Esc and any other key or character, Alt with that key: read whole, `.unknown`.
    static func key(next: () -> Int32?, pushBack: (Int32) -> Void) -> Key {
        guard let first = next() else { return .escape }
        if first == escape || first == KEY_RESIZE || first == KEY_MOUSE {
            pushBack(first)
            return .escape
        }
        switch first {
        case Int32(UInt8(ascii: "[")):
            // Parameter and intermediate bytes (0x20–0x3F), then one final byte (0x40–0x7E).
            for _ in 0..<maximumSequenceLength {
                guard let byte = next() else { break }
                if (0x20...0x3F).contains(byte) { continue }
                if !(0x40...0x7E).contains(byte) { pushBack(byte) }
                break
            }
        case Int32(UInt8(ascii: "O")):
            if let byte = next(), !(0x20...0x7E).contains(byte) { pushBack(byte) }
        case 0xC2...0xF4:
            // Alt with a character beyond ASCII: the rest of its UTF-8 bytes.
            var input = UTF8Input()
            _ = input.feed(UInt8(first))
            while let more = next() {
                guard (0x80...0xBF).contains(more) else { pushBack(more); break }
                if input.feed(UInt8(more)) != nil { break }
            }
        default:
            break
        }
        return .unknown(escape)
    }
}
