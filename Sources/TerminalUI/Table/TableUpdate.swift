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
    /// Sections moved among the others, from old to new index: their rows travel with them
    /// (those not otherwise changed are not listed).
    public var movedSections: [(from: Int, to: Int)] = []
    /// Sections whose header changed in place (a new title), old and new index.
    public var reloadedSections: [(from: Int, to: Int)] = []

    public init() {}

    /// Where a section that was at `old` before the batch is after it; nil when it was deleted.
    /// Sections leave (deleted, moved away) from the old order and arrive (inserted, moved
    /// in) in the new one.
    public func newSection(of old: Int) -> Int? {
        if deletedSections.contains(old) { return nil }
        if let kept = movedSections.first(where: { $0.from == old }) ?? reloadedSections.first(where: { $0.from == old }) { return kept.to }
        let leaving = deletedSections.union(movedSections.map(\.from))
        var section = old - leaving.filter { $0 < old }.count
        for arriving in insertedSections.union(movedSections.map(\.to)).sorted() where arriving <= section { section += 1 }
        return section
    }

    /// Where a row that was at `old` before the batch is after it; nil when it was deleted.
    public func newPosition(of old: TablePosition) -> TablePosition? {
        if deletedSections.contains(old.section) || deletedRows.contains(old) { return nil }
        if let move = movedRows.first(where: { $0.from == old }) ?? reloadedRows.first(where: { $0.from == old }) {
            return move.to
        }
        let removed = deletedRows + movedRows.map(\.from) + reloadedRows.map(\.from)
        var row = old.row - removed.filter { $0.section == old.section && $0.row < old.row }.count
        guard let section = newSection(of: old.section) else { return nil }
        let added = (insertedRows + movedRows.map(\.to) + reloadedRows.map(\.to)).filter { $0.section == section }.map(\.row).sorted()
        for inserted in added where inserted <= row { row += 1 }
        return TablePosition(section: section, row: row)
    }

    /// The rows that changed, at their new places.
    public var changedRows: [TablePosition] {
        insertedRows + movedRows.map(\.to) + reloadedRows.map(\.to)
    }
}
