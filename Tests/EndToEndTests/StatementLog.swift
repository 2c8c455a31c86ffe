import Foundation

/// What a PostgreSQL server of a test's own logs, statement by statement: the server runs with
/// `StatementLog.settings` (every statement logged, with its process and database), and
/// `during` returns what one action sent to one database. Counting on the server sees every
/// statement however the client sends it (simple or extended protocol, pipelined or not, over
/// TLS or not), which counting through a relay could not.
struct StatementLog {
    /// The server settings the log needs.
    static let settings: [(String, String)] = [
        ("log_statement", "all"), ("log_connections", "on"), ("log_line_prefix", "'\(prefix)%p\(separator)%d\(separator) '"),
    ]
    private static let prefix = "@@"
    private static let separator = "@"

    /// The server's log file.
    let file: URL
    /// The database whose statements count.
    let database: String

    /// What one action sent: its statements, in the order the server logged them, and the
    /// connections it opened.
    struct Sent: CustomStringConvertible {
        var statements: [(process: String, text: String)] = []
        var connections = 0

        /// The statements, numbered, for a failure's message.
        var description: String {
            "\(statements.count) statements on \(connections) new connections:\n"
                + statements.enumerated().map { "\($0.offset + 1). [\($0.element.process)] \($0.element.text)" }.joined(separator: "\n")
        }
    }

    /// What `database` was sent while `action` ran and until the log stayed still for
    /// `settle` seconds after it (a board keeps sending after its first rows are drawn).
    func during(settle: Double = 0, _ action: () throws -> Void) throws -> Sent {
        let start = size()
        try action()
        var last = size()
        var still = Date()
        while Date().timeIntervalSince(still) < settle {
            Thread.sleep(forTimeInterval: 0.1)
            let now = size()
            if now != last { last = now; still = Date() }
        }
        return parse(read(from: start))
    }

    private func size() -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    private func read(from offset: UInt64) -> String {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }

    /// The statements and connections of `database` in `text`: a line with the prefix starts a
    /// message; a statement's further lines (SQL on several lines) have none.
    private func parse(_ text: String) -> Sent {
        var sent = Sent()
        var inStatement = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix(Self.prefix) else {
                if inStatement { sent.statements[sent.statements.count - 1].text += " " + line.trimmingCharacters(in: .whitespaces) }
                continue
            }
            inStatement = false
            let fields = line.dropFirst(Self.prefix.count).split(separator: Character(Self.separator), maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[1] == database else { continue }
            let message = fields[2].trimmingCharacters(in: .whitespaces)
            if message.hasPrefix("LOG:  connection authorized") {
                sent.connections += 1
            } else if let text = Self.statement(in: message) {
                sent.statements.append((String(fields[0]), text))
                inStatement = true
            }
        }
        return sent
    }

    /// The SQL of a logged statement: `statement: SQL` (simple protocol) or
    /// `execute NAME: SQL` (extended).
    private static func statement(in message: String) -> String? {
        if let range = message.range(of: "LOG:  statement: ") {
            return String(message[range.upperBound...])
        }
        if message.hasPrefix("LOG:  execute "), let colon = message.dropFirst("LOG:  execute ".count).range(of: ": ") {
            return String(message[colon.upperBound...])
        }
        return nil
    }
}
