/// 64-bit FNV-1a: a short name that stays the same from launch to launch for some text, such
/// as a schema's SQL in a cache stamp, or a database's location in a section cache's name
/// (the scoreboard keeps one cache per file). Not a checksum of a file's bytes (`Checksum`).
package struct FNV1a {
    /// The hash of everything combined so far.
    package private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    package init() {}

    package mutating func combine(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    /// Combines the UTF-8 bytes of `text`.
    package mutating func combine(_ text: String) {
        for byte in text.utf8 { combine(byte) }
    }

    /// The hash in lowercase hexadecimal, without leading zeros.
    package var hex: String { String(value, radix: 16) }
}
