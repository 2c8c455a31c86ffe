import Foundation

/// A failure a person can act on, described in one sentence.
public struct WorldCupError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    /// Whether the sentence says that the database file is damaged: SQLite reported it
    /// (SQLITE_CORRUPT, SQLITE_NOTADB) or a check found it. A program showing the board
    /// ends on such an error instead of showing it and going on.
    public var isDamage = false

    /// Whether the sentence says a database file could be read but not written: a command
    /// that only reads would open it with `--read-only` (`suggestingReadOnly`).
    public var readableOnly = false

    public init(_ description: String) {
        self.description = description
    }

    /// The error for a damaged database file.
    package static func damage(_ description: String) -> WorldCupError {
        var error = WorldCupError(description)
        error.isDamage = true
        return error
    }

    /// For a command that only reads: the sentence of a file it may read but not write, with
    /// the option that opens it (`readableOnly`); any other error as it is.
    public static func suggestingReadOnly(_ error: any Error) -> any Error {
        guard let error = error as? WorldCupError, error.readableOnly, error.description.hasSuffix(".") else { return error }
        var suggested = WorldCupError(String(error.description.dropLast()) + "; add --read-only to watch it without changing it.")
        suggested.isDamage = error.isDamage
        return suggested
    }

    /// Text from outside (a name, a path) made safe to quote in a message: characters a
    /// terminal would obey instead of show become escapes such as `\u{1B}`, and text longer
    /// than `limit` Unicode scalars is cut short with “…” (scalars, not characters: one
    /// character may stack up thousands), so a message stays one readable line.
    public static func quotable(_ text: String, limit: Int = 80) -> String {
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

    /// A path (or any word) as a POSIX shell reads it back, for a command quoted in a
    /// sentence: as it is when it holds only safe characters, else in single quotes.
    public static func shellQuoted(_ path: String) -> String {
        let safe = path.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "/._-+,=@%".unicodeScalars.contains($0)) }
        return safe && !path.isEmpty ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// A command a sentence suggests, as a POSIX shell reads it back when pasted: `command` as
    /// written (the program and its fixed options), then each argument quoted by
    /// `shellQuoted` (anything a terminal would obey escaped): `chmod 600 '/home/a b/.pgpass'`.
    /// Never typographic quotes, which a shell keeps as part of a name; names in the sentence's
    /// prose keep theirs.
    public static func shellCommand(_ command: String, _ arguments: String...) -> String {
        ([command] + arguments.map { quotable(shellQuoted($0), limit: .max) }).joined(separator: " ")
    }

    /// A system error number (`errno`) as the end of a sentence, such as "permission denied".
    package static func phrase(errno code: Int32) -> String {
        switch code {
        case ENOENT: "it does not exist"
        case EACCES, EPERM: "permission denied"
        case ENOTDIR: "part of the path is not a folder"
        case EROFS: "the file system is read-only"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
