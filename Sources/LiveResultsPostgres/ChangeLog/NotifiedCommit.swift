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
    /// What the writing transaction said of itself (`PostgresChangeLog.noteSetting`), when it
    /// fits the notification.
    package var note: String?

    package init(xid: UInt64, table: String, columns: [String], entries: [Entry], isCut: Bool = false, wroteOtherTables: Bool = false) {
        (self.xid, self.table, self.columns, self.entries, self.isCut) = (xid, table, columns, entries, isCut)
        self.wroteOtherTables = wroteOtherTables
    }

    /// The notification `text`; nil when it is not in this layout (a bare transaction id, a
    /// log installed by an older version, or text another sender made).
    package init?(text: String) {
        var text = text
        guard let commit = text.withUTF8({ NotifiedCommit.parse($0) }) else { return nil }
        self = commit
    }

    /// Parses the notification's UTF-8 bytes in place: no copy of the text but the names and
    /// values it holds.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> NotifiedCommit? {
        var scanner = Scanner(bytes: bytes)
        guard let version = Layout.Version(scanner.word()), let xid = scanner.integer(UInt64.self),
              let table = scanner.text() else { return nil }
        guard let count = scanner.integer(Int.self), count >= 0, count <= bytes.count else { return nil }
        var columns: [String] = []
        columns.reserveCapacity(count)
        for _ in 0..<count {
            guard let column = scanner.text() else { return nil }
            columns.append(column)
        }
        var entries: [Entry] = []
        var others = false
        var isCut = false
        var note: String?
        // Entries (or `cut`), then the layout's optional ends in order: `+`, then the note.
        while !scanner.isAtEnd {
            var ahead = scanner
            let word = ahead.word()
            if word == Layout.otherTables, !others, note == nil {
                others = true
                scanner = ahead
                continue
            }
            if word == Layout.noteMark, version.hasNote, note == nil {
                guard let text = ahead.text(), ahead.isAtEnd else { return nil }
                note = text
                break
            }
            if word == Layout.cut, entries.isEmpty, !isCut, !others {
                isCut = true
                scanner = ahead
                continue
            }
            guard !others, !isCut, let position = scanner.integer(Int64.self), let kind = scanner.word(),
                  let id = scanner.integer(RecordID.self) else { return nil }
            switch kind {
            case Layout.deleted:
                entries.append(Entry(position: position, id: id, values: nil))
            case Layout.valued:
                var values: [String?] = []
                values.reserveCapacity(count)
                for _ in 0..<count {
                    guard let value = scanner.value() else { return nil }
                    values.append(value)
                }
                entries.append(Entry(position: position, id: id, values: values))
            default:
                return nil
            }
        }
        var commit = NotifiedCommit(xid: xid, table: table, columns: columns, entries: entries, isCut: isCut,
                                    wroteOtherTables: others || !version.saysOtherTables)
        commit.note = note
        return commit
    }

    /// The text of this commit's notification, as the triggers write it (for tests).
    package var text: String {
        var text = Layout.Version.current.rawValue + " \(xid) " + Layout.encode(table)
        text += " \(columns.count)" + columns.map { " " + Layout.encode($0) }.joined()
        var trailer = wroteOtherTables ? " " + Layout.otherTables : ""
        if let note { trailer += " " + Layout.noteMark + " " + Layout.encode(note) }
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
        /// The first word of a notification: which layout it is in.
        enum Version: String {
            /// Before `otherTables`, which it never says.
            case withoutOtherTables = "lr1"
            /// With `otherTables`, without a note.
            case withoutNote = "lr2"
            /// With `otherTables` and the note.
            case current = "lr3"

            init?(_ word: String?) {
                guard let word, let version = Version(rawValue: word) else { return nil }
                self = version
            }

            var saysOtherTables: Bool { self != .withoutOtherTables }
            var hasNote: Bool { self == .current }
        }

        /// The word of a commit too large for one notification.
        static let cut = "cut"
        /// The word of an entry whose row is gone, and of one with the row's values.
        static let deleted = "d"
        static let valued = "v"
        /// The word before the note the writing transaction left (`PostgresChangeLog.noteSetting`).
        static let noteMark = "#"
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
            // "lr3 ", a 20-digit xid and a space before the header; " +" after the entries.
            pendingLimit = Layout.payloadLimit - (Version.current.rawValue.utf8.count + 22 + 1 + Layout.otherTables.utf8.count)
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

    /// Reads words and length-prefixed texts from UTF-8 bytes, counting a text's length in
    /// characters as PostgreSQL's `length` does (code points: bytes that do not continue one).
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        static let space = UInt8(ascii: " ")

        var isAtEnd: Bool {
            var at = index
            while at < bytes.count, bytes[at] == Self.space { at += 1 }
            return at == bytes.count
        }

        private mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == Self.space { index += 1 }
        }

        /// The bytes of the next run up to a space.
        private mutating func wordBytes() -> Range<Int>? {
            skipSpaces()
            let start = index
            while index < bytes.count, bytes[index] != Self.space { index += 1 }
            return index > start ? start..<index : nil
        }

        mutating func word() -> String? {
            wordBytes().map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        }

        /// The next word as a decimal integer.
        mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
            guard let range = wordBytes() else { return nil }
            var value: T = 0
            var negative = false
            for (offset, byte) in bytes[range].enumerated() {
                if offset == 0, byte == UInt8(ascii: "-"), T.isSigned, range.count > 1 {
                    negative = true
                    continue
                }
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
                let digit = T(byte - UInt8(ascii: "0"))
                let (sum, overflowB) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                guard !overflowA, !overflowB else { return nil }
                value = sum
            }
            return value
        }

        /// The next `<length>:<text>`.
        mutating func text() -> String? {
            skipSpaces()
            var length = 0
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]), index - start < 9 else { return nil }
                length = length * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            guard index < bytes.count, index > start else { return nil }
            index += 1
            let body = index
            var characters = 0
            while characters < length {
                guard index < bytes.count else { return nil }
                index += 1
                while index < bytes.count, bytes[index] & 0b1100_0000 == 0b1000_0000 { index += 1 }
                characters += 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[body..<index]), as: UTF8.self)
        }

        /// The next value: `~` (NULL) or a text.
        mutating func value() -> String?? {
            skipSpaces()
            if index < bytes.count, bytes[index] == UInt8(ascii: "~") {
                index += 1
                return .some(nil)
            }
            return text().map { .some($0) }
        }
    }
}
