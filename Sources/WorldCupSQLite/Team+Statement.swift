import GRDB
import LiveResults
import LiveResultsSQLite
import WorldCup

extension Team {
    /// The columns `init?(currentRowOf:)` reads, in its order: `Team.columns`, then the zone's
    /// name by a subquery (a statement's RETURNING reads its own table only).
    static let columnsInOrder = Team.columns.selectList(table: "team", zone: "(SELECT name FROM zone WHERE zone.id = team.zoneID)")

    /// The tap's statement: one win more, the team returned as `init?(currentRowOf:)` reads it.
    static let tapStatement = tapSQL(columns: Team.columns, returning: columnsInOrder)

    /// The tap of `columns.tapColumn`, returning `returning`.
    package static func tapSQL(columns: [TeamColumn], returning: String) -> String {
        let tapped = columns.tapColumn.identifier
        return "UPDATE team SET \(tapped) = \(tapped) + 1 WHERE id = ? RETURNING \(returning)"
    }

    /// The team in the row a statement stands on, whose columns are `columnsInOrder`, read
    /// with SQLite's C API where the statement stands. (A GRDB `Row` would first map every
    /// column's lowercased name, for every row of every tap.) Nil when a value has the
    /// wrong type.
    init?(currentRowOf statement: Statement) {
        guard let team = Self.team(currentRowOf: statement, columns: Team.columns) else { return nil }
        self = team
    }

    /// The team in the row a statement stands on, whose columns are `columns.selectList`.
    package static func team(currentRowOf statement: Statement, columns: [TeamColumn]) -> Team? {
        let raw = statement.sqliteStatement
        return columns.team(fromValues: { index, _ in ColumnValue(DatabaseValue(sqliteStatement: raw, index: CInt(index))) })
    }
}
