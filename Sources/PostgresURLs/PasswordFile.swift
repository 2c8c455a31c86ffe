import Foundation

/// libpq's password file (PGPASSFILE, by default ~/.pgpass): lines of
/// `host:port:database:username:password`, where `*` in the first four fields matches
/// anything, `\:` and `\\` stand for a colon and a backslash, and `#` starts a comment line.
/// The first line that matches gives the password.
///
/// As libpq does, a file that group or others may read is ignored with a warning, and a
/// missing file is no error.
struct PasswordFile {
    /// The file's path.
    let path: String

    /// The password for `user` on `database` at `host` (for a Unix socket: its directory, or
    /// `localhost` for the default one, as libpq matches it) and `port`; or nil, with the
    /// warning to give when the file was ignored.
    func password(host: String, port: Int, database: String, user: String) -> (password: String?, warning: PostgresSettingsWarning?) {
        var status = stat()
        guard stat(path, &status) == 0 else { return (nil, nil) }
        guard status.st_mode & S_IFMT == S_IFREG else { return (nil, .passwordFileNotPlain(path)) }
        guard status.st_mode & (S_IRWXG | S_IRWXO) == 0 else { return (nil, .passwordFileReadableByOthers(path)) }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return (nil, nil) }
        let wanted = [host, String(port), database, user]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = Self.fields(of: String(line))
            guard fields.count >= 5 else { continue }
            if zip(fields, wanted).allSatisfy({ $0.isWildcard || $0.text == $1 }) {
                return (fields[4].text, nil)
            }
        }
        return (nil, nil)
    }

    /// One field of a line: its text, and whether it is a bare `*` (an escaped `\*` is a plain star).
    struct Field: Equatable {
        var text = ""
        var isWildcard: Bool { text == "*" && !escaped }
        var escaped = false
    }

    /// The fields of a line: split at unescaped colons, with `\x` read as `x`.
    static func fields(of line: String) -> [Field] {
        var fields = [Field()]
        var escaping = false
        for character in line {
            if escaping {
                fields[fields.count - 1].text.append(character)
                fields[fields.count - 1].escaped = true
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == ":" {
                fields.append(Field())
            } else {
                fields[fields.count - 1].text.append(character)
            }
        }
        return fields
    }
}
