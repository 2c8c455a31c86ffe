import GRDB
import LiveResults
import LiveResultsSQLite

extension Team {
    /// The scoreboard's order inside a zone, defined once: most wins, then the name as people
    /// read it (`nameSortKey`: case and accents folded, unique), text in SQLite's BINARY order
    /// (UTF-8 bytes); the row id comes last, as in every request of the controller. The zones
    /// come first, in their positions (`zoneOrder`): the screen's controller sections through
    /// the zone table and orders rows by this. `TeamStore.teams()`, the schema's index
    /// (`zoneID` first) and the benchmark's peer are made from it.
    ///
    /// The latest migration that builds the board's index (v9) builds it from this order; a
    /// change here needs a migration that builds the index again, or existing databases would
    /// sort without it.
    public static let boardOrder: [SortColumn] = [
        SortColumn("wins", ascending: false),
        SortColumn("nameSortKey"),
    ]

    /// The order of the zones, the board's sections: their position (the zone's id breaks ties).
    public static let zoneOrder: [SortColumn] = [SortColumn("position")]

    /// The board's sections: the zones, through each team's `zoneID`, titled by the zone's
    /// name, in their positions. A zone renamed is one section updated, a zone moved one
    /// section moved, on every board.
    public static let boardSections = RelatedSections(table: "zone", foreignKey: "zoneID", key: "id", title: "name", order: zoneOrder)

    /// The terms of an ORDER BY (without the keywords) that lists teams in `boardOrder`.
    public static var boardOrderSQL: String { SortColumn.orderingSQL(boardOrder) }

    /// Whether this team ranks ahead of `other` inside a zone: the board's order (most wins,
    /// then the name's sort key, then the id). The leader is the team that ranks
    /// ahead of every other.
    public func ranksAhead(of other: Team) -> Bool {
        let order = SortColumn.compare(self, other, by: Self.boardOrder) { team, column in team.orderValue(ofColumn: column) }
        return order != 0 ? order < 0 : (id ?? .max) < (other.id ?? .max)
    }

    /// The value of one column as the database stores it. The columns of `boardOrder` are read
    /// straight from their properties (no encoding); any other column from the whole encoding,
    /// so that a column added to the order sorts right before it gets its own case.
    func orderValue(ofColumn column: String) -> DatabaseValue {
        switch column {
        case "zoneID": zoneID.databaseValue
        case "wins": wins.databaseValue
        case "teamName": teamName.databaseValue
        case "nameSortKey": Team.nameSortKey(teamName).databaseValue
        default: ((try? databaseDictionary) ?? [:])[column] ?? .null
        }
    }
}
