import LiveResults

/// What a committed transaction's notification says it wrote to a tracked table (see
/// `PostgresChangeLog`): its id, and its log entries in position order, each with the row as
/// the transaction left it (the columns the table's log was installed to carry), or that the
/// row is gone. `isCut` when the transaction wrote more than one notification holds: the
/// listener then reads the log. `wroteOtherTables` when the transaction wrote another tracked
/// table too (a final `+`): a feed whose sections come through a related table cannot tell
/// whether that was its related table, changed after these entries, and reads the log.
///
/// The text, as the log's triggers write it (`lr2` names this layout; a notification in any
/// other form, such as a bare transaction id, says only "read the log"):
///
///     lr2 <xid> <table> <n> <column 1> … <column n> [ <position> v <id> <value 1> … <value n> | <position> d <id> ]… [+]
///     lr2 <xid> <table> <n> <column 1> … <column n> cut [+]
///
/// `lr1`, the layout of a log installed before the `+`, is read the same way; as it cannot say
/// whether the transaction wrote another table, it is taken to have (`wroteOtherTables`).
///
/// A name or a value is its length in characters, a colon and its text (`5:Spain`), so that
/// any text fits; `~` is NULL. Values are the columns' text forms (`::text`).
package struct NotifiedCommit: Equatable, Sendable {
    /// One log entry the notification carries.
    package struct Entry: Equatable, Sendable {
        package var position: Int64
        package var id: RecordID
        /// The row's columns after the transaction, in `NotifiedCommit.columns`' order; nil:
        /// the row is gone (deleted, or its id changed).
        package var values: [String?]?
    }

    package var xid: UInt64
    /// The table whose entries these are (one channel a table; the name lets one listener
    /// follow several tables).
    package var table: String
    package var columns: [String]
    package var entries: [Entry]
    /// Whether the transaction wrote more than the notification could hold.
    package var isCut: Bool
    /// Whether the transaction wrote another tracked table too.
    package var wroteOtherTables: Bool

    package init(xid: UInt64, table: String, columns: [String], entries: [Entry], isCut: Bool = false, wroteOtherTables: Bool = false) {
        (self.xid, self.table, self.columns, self.entries, self.isCut) = (xid, table, columns, entries, isCut)
        self.wroteOtherTables = wroteOtherTables
    }

    /// The notification `text`; nil when it is not in this layout (a bare transaction id, a
    /// log installed by an older version, or text another sender made).
    package init?(text: String) {
        var scanner = Scanner(text.unicodeScalars)
        let version = scanner.word()
        guard version == Layout.version || version == Layout.versionWithoutOtherTables, let xid = scanner.word().flatMap({ UInt64($0) }),
              let table = scanner.text() else { return nil }
        let saysOtherTables = version == Layout.version
        guard let count = scanner.word().flatMap({ Int($0) }), count >= 0 else { return nil }
        var columns: [String] = []
        for _ in 0..<count {
            guard let column = scanner.text() else { return nil }
            columns.append(column)
        }
        var ahead = scanner
        if ahead.word() == "cut" {
            let others = ahead.isAtEnd ? false : ahead.word() == Layout.otherTables
            guard ahead.isAtEnd else { return nil }
            self.init(xid: xid, table: table, columns: columns, entries: [], isCut: true, wroteOtherTables: others || !saysOtherTables)
            return
        }
        var entries: [Entry] = []
        var others = false
        while !scanner.isAtEnd {
            ahead = scanner
            if ahead.word() == Layout.otherTables, ahead.isAtEnd {
                others = true
                break
            }
            guard let position = scanner.word().flatMap({ Int64($0) }), let kind = scanner.word(),
                  let id = scanner.word().flatMap({ RecordID($0) }) else { return nil }
            switch kind {
            case "d":
                entries.append(Entry(position: position, id: id, values: nil))
            case "v":
                var values: [String?] = []
                for _ in 0..<count {
                    guard let value = scanner.value() else { return nil }
                    values.append(value)
                }
                entries.append(Entry(position: position, id: id, values: values))
            default:
                return nil
            }
        }
        self.init(xid: xid, table: table, columns: columns, entries: entries, wroteOtherTables: others || !saysOtherTables)
    }

    /// The text of this commit's notification, as the triggers write it (for tests).
    package var text: String {
        var text = Layout.version + " \(xid) " + Layout.encode(table)
        text += " \(columns.count)" + columns.map { " " + Layout.encode($0) }.joined()
        let trailer = wroteOtherTables ? " " + Layout.otherTables : ""
        if isCut { return text + " cut" + trailer }
        for entry in entries {
            if let values = entry.values {
                text += " \(entry.position) v \(entry.id)" + values.map { " " + ($0.map(Layout.encode) ?? "~") }.joined()
            } else {
                text += " \(entry.position) d \(entry.id)"
            }
        }
        return text + trailer
    }

    /// Where the notification's parts come from on the server.
    package struct Layout {
        /// The first word of a notification in this layout.
        static let version = "lr2"
        /// The first word of the layout before `otherTables`, which never says it.
        static let versionWithoutOtherTables = "lr1"
        /// The transaction-local setting where the row trigger of a table keeps the header and
        /// entries until the commit sends them: this, then the md5 of the table's name (a
        /// setting's name must be an identifier).
        static let pendingSetting = "liveresults.n"
        /// PostgreSQL refuses a payload of 8,000 bytes or more.
        static let payloadLimit = 7_999
        /// The last word of a notification whose transaction wrote another tracked table too.
        static let otherTables = "+"

        /// What follows the transaction id: the table and its columns, as `encode` writes them.
        let header: String
        /// The most bytes of the header and entries that fit in a notification.
        let pendingLimit: Int

        init(table: String, columns: [String]) {
            header = Layout.encode(table) + " \(columns.count)" + columns.map { " " + Layout.encode($0) }.joined()
            // "lr2 ", a 20-digit xid and a space before the header; " +" after the entries.
            pendingLimit = Layout.payloadLimit - (Layout.version.utf8.count + 22 + 1 + Layout.otherTables.utf8.count)
        }

        /// A name or value: its length in characters, a colon, its text.
        static func encode(_ text: String) -> String {
            "\(text.unicodeScalars.count):" + text
        }

        /// SQL of a value for the payload, from an SQL expression (a column of NEW): a space,
        /// then `encode`'s form of its text, or `~` for NULL. Never NULL itself.
        static func valueSQL(_ expression: String) -> String {
            "coalesce(' ' || length((\(expression))::text) || ':' || (\(expression))::text, ' ~')"
        }
    }

    /// Reads words and length-prefixed texts, counting characters as PostgreSQL's `length`
    /// does (code points).
    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ scalars: String.UnicodeScalarView) {
            self.scalars = Array(scalars)
        }

        var isAtEnd: Bool {
            var at = index
            while at < scalars.count, scalars[at] == " " { at += 1 }
            return at == scalars.count
        }

        /// The next run of characters up to a space.
        mutating func word() -> String? {
            while index < scalars.count, scalars[index] == " " { index += 1 }
            let start = index
            while index < scalars.count, scalars[index] != " " { index += 1 }
            return index > start ? String(String.UnicodeScalarView(scalars[start..<index])) : nil
        }

        /// The next `<length>:<text>`.
        mutating func text() -> String? {
            while index < scalars.count, scalars[index] == " " { index += 1 }
            let start = index
            while index < scalars.count, scalars[index] != ":" {
                guard ("0"..."9").contains(scalars[index]) else { return nil }
                index += 1
            }
            guard index < scalars.count, index > start, let length = Int(String(String.UnicodeScalarView(scalars[start..<index]))),
                  index + 1 + length <= scalars.count else { return nil }
            let text = String(String.UnicodeScalarView(scalars[(index + 1)..<(index + 1 + length)]))
            index += 1 + length
            return text
        }

        /// The next value: `~` (NULL) or a text.
        mutating func value() -> String?? {
            while index < scalars.count, scalars[index] == " " { index += 1 }
            if index < scalars.count, scalars[index] == "~" {
                index += 1
                return .some(nil)
            }
            return text().map { .some($0) }
        }
    }
}
