import Foundation

/// A failure a person can act on, described in one sentence.
public struct WorldCupError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }

    /// Text from outside (a name, a path) made safe to quote in a message: characters a
    /// terminal would obey instead of show become escapes such as `\u{1B}`, and text longer
    /// than `limit` Unicode scalars is cut short with “…” (scalars, not characters: one
    /// character may stack up thousands), so a message stays one readable line.
    public static func shown(_ text: String, limit: Int = 80) -> String {
        var shown = String.UnicodeScalarView()
        for (count, scalar) in text.unicodeScalars.enumerated() {
            guard count < limit else {
                shown.append("…")
                break
            }
            if TeamValidation.isUnsafe(scalar) {
                shown.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    /// A system error number (`errno`) as the end of a sentence, such as "permission denied".
    static func phrase(errno code: Int32) -> String {
        switch code {
        case ENOENT: "it does not exist"
        case EACCES, EPERM: "permission denied"
        case ENOTDIR: "part of the path is not a folder"
        case EROFS: "the file system is read-only"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}

/// The rules every team name and zone obeys.
public enum TeamValidation {
    /// The longest name or zone, in characters.
    public static let maximumLength = 64

    /// The most Unicode scalars one character may stack up: room for any emoji sequence (the
    /// longest have ten), none for a letter buried under thousands of combining marks.
    public static let maximumScalarsPerCharacter = 16

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

    /// Checks text that will be stored and shown: after trimming it must be non-empty, at most
    /// `maximumLength` characters, and free of control characters, line and paragraph
    /// separators, bidi controls and the replacement character that marks invalid UTF-8.
    static func check(_ text: String, what: String, context: String?) throws {
        let place = context.map { " in \($0)" } ?? ""
        let value = trimmed(text)
        guard !value.isEmpty else { throw WorldCupError("The \(what)\(place) is empty.") }
        guard value.count <= maximumLength else {
            throw WorldCupError("The \(what)\(place) is longer than \(maximumLength) characters.")
        }
        guard !value.unicodeScalars.contains(where: isUnsafe) else {
            throw WorldCupError("The \(what)\(place) contains control characters.")
        }
        guard !value.unicodeScalars.contains("\u{FFFD}") else {
            throw WorldCupError("The \(what)\(place) contains bytes that are not valid UTF-8 text.")
        }
        guard value.allSatisfy({ $0.unicodeScalars.count <= maximumScalarsPerCharacter }) else {
            throw WorldCupError("The \(what)\(place) stacks more than \(maximumScalarsPerCharacter) marks on one character.")
        }
    }

    /// Whether a terminal would act on this scalar rather than show it: C0 and C1 controls
    /// (escape sequences start with one), line and paragraph separators, and bidi controls.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return isBidiControl(scalar)
        }
    }

    /// Bidi embedding, override and isolate controls: invisible, and they reorder what follows.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
