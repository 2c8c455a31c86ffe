import Foundation

extension HistoryRow {
    /// The entries a writing transaction's note lists (a PostgreSQL board's change log carries
    /// it with the commit's notification, `PostgresSchema.historyNote`): one JSON object a line,
    /// the history row's columns by name, its time as `HistoryDate` reads it. Nil when a line
    /// is not such an object: the caller then reads the history.
    public static func entries(inNote note: String) -> [HistoryEntry]? {
        var entries: [HistoryEntry] = []
        for line in note.split(separator: "\n") {
            guard let columns = try? JSONDecoder().decode(NoteColumns.self, from: Data(line.utf8)),
                  let entry = try? columns.row.entry() else { return nil }
            entries.append(entry)
        }
        return entries.isEmpty ? nil : entries
    }

    /// A history row's columns, as `to_jsonb` names them.
    private struct NoteColumns: Decodable {
        var id: Int64
        var at: String
        var author: String
        var action: String
        var teamID: Int64
        var teamName: String
        var oldName: String?, oldZone: String?, oldImage: String?, oldWins: Int?
        var newName: String?, newZone: String?, newImage: String?, newWins: Int?
        var undid: String?
        var undoneBy: Int64?
        var reverts: Int64?
        var refused: Bool?
        var oldPosition: Int?, newPosition: Int?, intoZoneID: Int64?, intoName: String?, teamIDs: String?

        var row: HistoryRow {
            var row = HistoryRow(id: id, at: at, author: author, action: action, teamID: teamID, teamName: teamName,
                                 old: Side(name: oldName, zone: oldZone, image: oldImage, wins: oldWins),
                                 new: Side(name: newName, zone: newZone, image: newImage, wins: newWins),
                                 undid: undid, undoneBy: undoneBy, reverts: reverts, refused: refused ?? false)
            row.zone = ZoneColumns(oldPosition: oldPosition, newPosition: newPosition, intoZoneID: intoZoneID, intoName: intoName, teamIDs: teamIDs)
            return row
        }
    }
}
