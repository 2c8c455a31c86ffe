import GRDB
import LiveResults

extension Team {
    /// The scoreboard's order, defined once: zone, then most wins, then the name as people
    /// read it (`nameSortKey`: case and accents folded, unique), text in SQLite's BINARY order
    /// (UTF-8 bytes); the row id comes last, as in every request of the controller. The screen's fetch request,
    /// `TeamStore.teams()`, the schema's index and the benchmark's peer are all made from it.
    ///
    /// The latest migration that builds the board's index (v6) builds it from this order; a
    /// change here needs a migration that builds the index again, or existing databases would
    /// sort without it.
    public static let boardOrder: [SortColumn] = [
        SortColumn("qualifyingZone"),
        SortColumn("wins", ascending: false),
        SortColumn("nameSortKey"),
    ]

    /// The terms of an ORDER BY (without the keywords) that lists teams in `boardOrder`.
    public static var boardOrderSQL: String { SortColumn.orderingSQL(boardOrder) }

    /// Whether this team ranks ahead of `other` inside a zone: the board's order without the
    /// zone (most wins, then the name's sort key, then the id). The leader is the team that ranks
    /// ahead of every other.
    public func ranksAhead(of other: Team) -> Bool {
        let order = SortColumn.compare(self, other, by: Self.boardOrderInZone) { team, column in team.orderValue(ofColumn: column) }
        return order != 0 ? order < 0 : (id ?? .max) < (other.id ?? .max)
    }

    /// `boardOrder` without its first term, the zone.
    private static let boardOrderInZone = Array(boardOrder.dropFirst())

    /// The value of one column as the database stores it. The columns of `boardOrder` are read
    /// straight from their properties (no encoding); any other column from the whole encoding,
    /// so that a column added to the order sorts right before it gets its own case.
    func orderValue(ofColumn column: String) -> DatabaseValue {
        switch column {
        case "qualifyingZone": qualifyingZone.databaseValue
        case "wins": wins.databaseValue
        case "teamName": teamName.databaseValue
        case "nameSortKey": Team.nameSortKey(teamName).databaseValue
        default: ((try? databaseDictionary) ?? [:])[column] ?? .null
        }
    }
}
