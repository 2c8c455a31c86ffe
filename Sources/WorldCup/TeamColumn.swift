import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite

/// One column of the `team` table: its name, its SQL type, which writes set it, and how a
/// `Team` gives its value and takes it back. `Team.columns` lists them all; both stores build
/// their statements from that list once (static lets) and decode a row by walking it, so a
/// new column is a new entry there and a migration on each store, nothing else.
public struct TeamColumn: Sendable {
    /// The column's type, as each store declares it.
    public enum SQLType: Sendable {
        /// A row id: SQLite's INTEGER, PostgreSQL's int8.
        case bigint
        /// A count: SQLite's INTEGER, PostgreSQL's int4.
        case integer
        /// SQLite's TEXT, PostgreSQL's text (ordered `COLLATE "C"`, by bytes, as SQLite orders it).
        case text
    }

    /// The writes that set a column.
    public struct Writes: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// A new team (an add, a seed, an undone delete).
        public static let add = Writes(rawValue: 1)
        /// An edit, or an undo that puts a team back as it was.
        public static let edit = Writes(rawValue: 2)
        /// A tap: the one column it changes, by one (`Team.tapColumn`).
        public static let tap = Writes(rawValue: 4)
    }

    public let name: String
    public let type: SQLType
    public let writtenBy: Writes
    /// The value a write stores for a team.
    public let value: @Sendable (Team) -> ColumnValue
    /// Sets the team's property from the value read; false when the value has the wrong type.
    /// Nil for a column only written, derived from others (the name's keys): no row read gives it back.
    public let read: (@Sendable (inout Team, ColumnValue) -> Bool)?

    /// A column that holds one of the team's properties.
    public static func stored<Value: ColumnValueConvertible & ColumnValueDecodable>(
        _ name: String, _ keyPath: any WritableKeyPath<Team, Value> & Sendable, _ type: SQLType, writtenBy: Writes) -> TeamColumn {
        TeamColumn(name: name, type: type, writtenBy: writtenBy, value: { $0[keyPath: keyPath].columnValue }, read: { team, value in
            guard let decoded = Value(columnValue: value) else { return false }
            team[keyPath: keyPath] = decoded
            return true
        })
    }

    /// A column the stores write from the team's other properties and never read back.
    public static func derived(_ name: String, _ type: SQLType, writtenBy: Writes, value: @escaping @Sendable (Team) -> ColumnValue) -> TeamColumn {
        TeamColumn(name: name, type: type, writtenBy: writtenBy, value: value, read: nil)
    }

    /// The name as an SQL identifier, quoted (both stores keep the camelCase).
    public var identifier: String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}

extension Team {
    /// The `team` table's columns, as every store writes and reads them (the one place to add
    /// one; the migrations that make it come apart, as history). `id` is the row id the store
    /// assigns. An edit writes every column but the id, as SQLite's `update` always has.
    public static let columns: [TeamColumn] = [
        .stored("id", \.id, .bigint, writtenBy: [.add]),
        .stored("teamName", \.teamName, .text, writtenBy: [.add, .edit]),
        .stored("zoneID", \.zoneID, .bigint, writtenBy: [.add, .edit]),
        .stored("imageName", \.imageName, .text, writtenBy: [.add, .edit]),
        .stored("wins", \.wins, .integer, writtenBy: [.add, .edit, .tap]),
        .derived("nameKey", .text, writtenBy: [.add, .edit]) { .text(Team.nameKey($0.teamName)) },
        .derived("nameSortKey", .text, writtenBy: [.add, .edit]) { .text(Team.nameSortKey($0.teamName)) },
    ]

    /// The name of the row id's column.
    public static let rowIDColumn = "id"
}

extension [TeamColumn] {
    /// The columns a row gives back to a `Team`, in the table's order.
    public var readable: [TeamColumn] { filter { $0.read != nil } }

    /// The one column a tap adds a win to.
    public var tapColumn: TeamColumn {
        guard let column = first(where: { $0.writtenBy.contains(.tap) }) else { preconditionFailure("The team table has no column a tap writes.") }
        return column
    }

    /// A select list of the readable columns of `table` (quoted), then `zone`, the zone's name:
    /// the order `team(fromValues:)` reads.
    public func selectList(table: String, zone: String) -> String {
        (readable.map { table + "." + $0.identifier } + [zone]).joined(separator: ", ")
    }

    /// A team from the values of a row of `selectList`: `value(i, type)` is its i-th, of that
    /// column's type (text for the zone's name). Nil when a value has the wrong type. (Walks
    /// the columns by position: no name is looked up.)
    public func team(fromValues value: (Int, TeamColumn.SQLType) throws -> ColumnValue) rethrows -> Team? {
        var team = Team(teamName: "", qualifyingZone: "", imageName: "")
        var index = 0
        for column in self {
            guard let read = column.read else { continue }
            guard read(&team, try value(index, column.type)) else { return nil }
            index += 1
        }
        guard case .text(let zone) = try value(index, .text) else { return nil }
        team.qualifyingZone = zone
        return team
    }
}

extension TeamColumn {
    /// Sets the team's property from `value`; throws, in one sentence naming the column, when
    /// the value has the wrong type. (Nothing for a derived column.)
    public func assign(_ value: ColumnValue, to team: inout Team) throws {
        guard let read, !read(&team, value) else { return }
        throw LiveResultsError(.database, "The column “\(name)” of the team table holds \(value), which a team cannot hold there.")
    }
}

extension [TeamColumn] {
    /// Puts every column's value for `team` in a GRDB container: what SQLite's insert and update write.
    public func encode(_ team: Team, to container: inout PersistenceContainer) {
        for column in self {
            container[column.name] = column.value(team)
        }
    }
}
