import Foundation

/// A failure a person can act on, described in one sentence.
public struct WorldCupError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// The rules every team name and zone obeys.
public enum TeamValidation {
    /// The longest name or zone, in characters.
    public static let maximumLength = 64

    /// The text with white space and newlines trimmed from both ends.
    public static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Checks a team name; `context` says where it came from.
    public static func checkName(_ name: String, context: String? = nil) throws {
        try check(name, what: "team name", context: context)
    }

    /// Checks a qualifying zone; `context` says where it came from.
    public static func checkZone(_ zone: String, context: String? = nil) throws {
        try check(zone, what: "qualifying zone", context: context)
    }

    private static func check(_ text: String, what: String, context: String?) throws {
        let place = context.map { " in \($0)" } ?? ""
        let value = trimmed(text)
        guard !value.isEmpty else { throw WorldCupError("The \(what)\(place) is empty.") }
        guard value.count <= maximumLength else {
            throw WorldCupError("The \(what)\(place) is longer than \(maximumLength) characters.")
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || isBidiControl($0) }) else {
            throw WorldCupError("The \(what)\(place) contains control characters.")
        }
    }

    /// Bidi embedding, override and isolate controls: invisible, and they reorder what follows.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
