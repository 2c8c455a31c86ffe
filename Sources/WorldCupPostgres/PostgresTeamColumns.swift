import LiveResults
import PostgresNIO
import WorldCup

/// A team's columns (`Team.columns`) in PostgreSQL's statements: the select lists, the
/// columns an add and an edit write, and the decoding of a row, all made once from the table.
struct PostgresTeamColumns: Sendable {
    let columns: [TeamColumn]
    /// The columns a new team is given, but the row id (the write's `"teamID"`).
    let added: [TeamColumn]
    /// The columns an edit writes.
    let edited: [TeamColumn]
    /// The columns as `team(_:)` decodes them, the zone's name by a subquery, in the
    /// statement's snapshot as the team.
    let selectList: String
    /// `selectList` as a write returns it: the zone's name by `PostgresSchema.zoneName`.
    let writtenList: String
    /// The column a tap adds a win to, quoted.
    let tapped: String

    init(_ columns: [TeamColumn]) {
        self.columns = columns
        added = columns.filter { $0.writtenBy.contains(.add) && $0.name != Team.rowIDColumn }
        edited = columns.filter { $0.writtenBy.contains(.edit) }
        selectList = columns.selectList(table: "team", zone: #"(SELECT zone.name FROM zone WHERE zone.id = team."zoneID")"#)
        writtenList = columns.selectList(table: "team", zone: #"\#(PostgresSchema.zoneName)(team."zoneID")"#)
        tapped = columns.tapColumn.identifier
    }

    /// The scoreboard's.
    static let team = PostgresTeamColumns(Team.columns)

    /// How many columns a row of `selectList` has: what a write returns after them is at this index.
    var count: Int { columns.readable.count + 1 }

    /// Inserts `team` with the id `"teamID"` of `source`'s row (a statement's CTE).
    func insert(_ team: Team, from source: String, _ text: inout PostgresRecordedWrite.Text) -> String {
        let values = added.map { text.bind($0.value(team), as: $0.type) }
        return "INSERT INTO team (\(Team.rowIDColumn), \(added.map(\.identifier).joined(separator: ", ")))\n"
            + "SELECT \"teamID\", \(values.joined(separator: ", ")) FROM \(source)"
    }

    /// Sets the edited columns of the team `"teamID"` of `source`'s row to `team`'s.
    func update(to team: Team, from source: String, _ text: inout PostgresRecordedWrite.Text) -> String {
        let set = edited.map { "\($0.identifier) = \(text.bind($0.value(team), as: $0.type))" }
        return "UPDATE team SET \(set.joined(separator: ", ")) FROM \(source) WHERE team.id = \(source).\"teamID\""
    }

    /// A team from a row of `selectList` (or `writtenList`), its cells read in turn.
    func team(_ row: PostgresRow) throws -> Team {
        var cells = row.makeIterator()
        let team = try columns.team(fromValues: { _, type in
            guard let cell = cells.next() else { throw WorldCupError("A row of the team table has fewer columns than a team.") }
            return try Self.value(cell, type)
        })
        guard let team else { throw WorldCupError("A row of the team table holds a value of the wrong type.") }
        return team
    }

    /// A cell as the value SQLite would hold, decoded as its column's type.
    private static func value(_ cell: PostgresCell, _ type: TeamColumn.SQLType) throws -> ColumnValue {
        switch type {
        case .bigint: try cell.decode(Int64?.self).columnValue
        case .integer: try cell.decode(Int32?.self).columnValue
        case .text: try cell.decode(String?.self).columnValue
        }
    }
}

extension PostgresRecordedWrite.Text {
    /// Binds `value` as its column's type and returns its placeholder (NULL for a value of another kind).
    mutating func bind(_ value: ColumnValue, as type: TeamColumn.SQLType) -> String {
        switch (type, value) {
        case (.bigint, .integer(let int)): bind(int)
        case (.integer, .integer(let int)): bind(Int32(clamping: int))
        case (.text, .text(let text)): bind(text)
        case (.bigint, _): bind(Int64?.none)
        case (.integer, _): bind(Int32?.none)
        case (.text, _): bind(String?.none)
        }
    }
}

extension Team {
    /// A team from a row of `PostgresSchema.teamColumns`.
    init(postgresRow row: PostgresRow) throws {
        self = try PostgresTeamColumns.team.team(row)
    }
}
