/// A batch of changes to a table, with Core Data's index spaces: deletes and move or reload
/// sources refer to the table before the batch; inserts and destinations to the table after it.
public struct TableUpdate: Sendable {
    public var deletedSections: Set<Int> = []
    public var insertedSections: Set<Int> = []
    public var deletedRows: [TablePosition] = []
    public var insertedRows: [TablePosition] = []
    /// Moved rows, from old to new place.
    public var movedRows: [(from: TablePosition, to: TablePosition)] = []
    /// Rows whose content changed in place (old and new place).
    public var reloadedRows: [(from: TablePosition, to: TablePosition)] = []

    public init() {}

    /// Where a row that was at `old` before the batch is after it; nil when it was deleted.
    public func newPosition(of old: TablePosition) -> TablePosition? {
        if deletedSections.contains(old.section) || deletedRows.contains(old) { return nil }
        if let move = movedRows.first(where: { $0.from == old }) ?? reloadedRows.first(where: { $0.from == old }) {
            return move.to
        }
        let removed = deletedRows + movedRows.map(\.from) + reloadedRows.map(\.from)
        var row = old.row - removed.filter { $0.section == old.section && $0.row < old.row }.count
        var section = old.section - deletedSections.filter { $0 < old.section }.count
        for inserted in insertedSections.sorted() where inserted <= section { section += 1 }
        let added = (insertedRows + movedRows.map(\.to) + reloadedRows.map(\.to)).filter { $0.section == section }.map(\.row).sorted()
        for inserted in added where inserted <= row { row += 1 }
        return TablePosition(section: section, row: row)
    }

    /// The rows that changed, at their new places.
    public var changedRows: [TablePosition] {
        insertedRows + movedRows.map(\.to) + reloadedRows.map(\.to)
    }
}
