import Foundation

/// Who makes a store's changes, as the history and other boards name them:
/// `--author`, else `WORLDCUP_AUTHOR`, else `$USER@hostname`.
public enum Author {
    /// The author a program's changes are recorded under: `explicit` (from `--author`) if
    /// given, else `WORLDCUP_AUTHOR`, else `$USER@hostname`. Throws one sentence when the one
    /// chosen breaks the rules of a name (empty, over 64 characters, control characters).
    public static func chosen(_ explicit: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let explicit {
            try TeamValidation.check(explicit, what: "author", context: "--author")
            return TeamValidation.trimmed(explicit)
        }
        if let variable = environment["WORLDCUP_AUTHOR"], !TeamValidation.trimmed(variable).isEmpty {
            try TeamValidation.check(variable, what: "author", context: "WORLDCUP_AUTHOR")
            return TeamValidation.trimmed(variable)
        }
        return machineDefault(environment: environment)
    }

    /// `$USER@hostname` (`$LOGNAME`, else "someone", when USER is not set), cut to the
    /// longest a name may be.
    public static func machineDefault(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let user = environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["LOGNAME"].flatMap { $0.isEmpty ? nil : $0 } ?? "someone"
        let author = "\(user)@\(ProcessInfo.processInfo.hostName)"
        let safe = String(String.UnicodeScalarView(author.unicodeScalars.filter { !TeamValidation.isUnsafe($0) }))
        return String(safe.prefix(TeamValidation.maximumLength))
    }
}
