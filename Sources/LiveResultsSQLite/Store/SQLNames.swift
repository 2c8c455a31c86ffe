import LiveResults

/// A few SQL identifiers (table or column names), matched as SQLite matches them: ignoring the
/// case of ASCII letters only. A match makes no string: the commit observer asks at every
/// statement, where `lowercased()` cost a tap about a microsecond.
struct SQLNames: Sendable {
    /// The names' UTF-8 bytes, ASCII letters folded to lower case.
    private let folded: [[UInt8]]

    init(_ names: some Sequence<String>) {
        folded = names.map { $0.utf8.map(Self.fold) }
    }

    /// Whether `name` is one of the names.
    func contains(_ name: String) -> Bool {
        let utf8 = name.utf8
        for candidate in folded where candidate.count == utf8.count {
            if zip(candidate, utf8).allSatisfy({ $0 == Self.fold($1) }) { return true }
        }
        return false
    }

    private static func fold(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
