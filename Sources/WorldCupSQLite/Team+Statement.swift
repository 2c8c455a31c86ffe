import GRDB
import WorldCup

extension Team {
    /// The columns `init?(currentRowOf:)` reads, in its order.
    /// (The zone's name by a subquery: a statement's RETURNING reads its own table only.)
    static let columnsInOrder = "id, teamName, (SELECT name FROM zone WHERE zone.id = team.zoneID), imageName, wins, zoneID"

    /// The team in the row a statement stands on, whose columns are `columnsInOrder`, read
    /// with SQLite's C API where the statement stands. (A GRDB `Row` would first map every
    /// column's lowercased name, for every row of every tap.) Nil when a value has the
    /// wrong type.
    init?(currentRowOf statement: Statement) {
        let raw = statement.sqliteStatement
        func value(_ index: CInt) -> DatabaseValue { DatabaseValue(sqliteStatement: raw, index: index) }
        guard let id = Int64.fromDatabaseValue(value(0)), let teamName = String.fromDatabaseValue(value(1)),
              let qualifyingZone = String.fromDatabaseValue(value(2)), let imageName = String.fromDatabaseValue(value(3)),
              let wins = Int.fromDatabaseValue(value(4)), let zoneID = Int64.fromDatabaseValue(value(5))
        else { return nil }
        self.init(id: id, teamName: teamName, qualifyingZone: qualifyingZone, imageName: imageName, wins: wins, zoneID: zoneID)
    }
}
