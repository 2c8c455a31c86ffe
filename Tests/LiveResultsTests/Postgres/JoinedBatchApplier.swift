import Foundation
import LiveResults

/// Applies a batch of a joined result to the result before it the way a batch-updating table
/// view does, and returns the result it gives (compare it with the controller's), or the
/// problems that keep it from applying: section and row deletes against the old result,
/// section and row inserts against the new, section and row moves from old to new (a moved
/// section's rows travel with it), updates at their new index.
func applyJoined(_ batch: ChangeBatch, to old: [JoinedSection]) -> (result: [JoinedSection], problems: [String]) {
    var problems: [String] = []
    let deleted = Set(batch.sectionChanges.filter { $0.kind == .delete }.map(\.index))
    let moved = batch.sectionChanges.filter { $0.kind == .move }
    let inserted = batch.sectionChanges.filter { $0.kind == .insert }
    for change in batch.sectionChanges where change.kind != .insert {
        guard old.indices.contains(change.index) else {
            problems.append("section \(change.kind) at old index \(change.index) of \(old.count)")
            continue
        }
        if old[change.index].identifier != change.identifier {
            problems.append("section \(change.kind) of \(change.identifier) at old index \(change.index), which holds \(old[change.index].identifier)")
        }
        if change.kind == .move || change.kind == .update, change.newIndex == nil {
            problems.append("section \(change.kind) of \(change.identifier) without a new index")
        }
    }
    let newCount = old.count - deleted.count + inserted.count
    // Each new section's origin: the old index whose rows it keeps (nil: inserted).
    var origin = [Int??](repeating: nil, count: max(newCount, 0))
    var names = [String?](repeating: nil, count: max(newCount, 0))
    var identifiers = [String?](repeating: nil, count: max(newCount, 0))
    func place(_ index: Int, from oldIndex: Int?, _ change: SectionChange) {
        guard origin.indices.contains(index), origin[index] == nil else {
            problems.append("section \(change.kind) of \(change.identifier) to new index \(index), taken or out of \(newCount)")
            return
        }
        origin[index] = .some(oldIndex)
        names[index] = change.name
        identifiers[index] = change.identifier
    }
    for change in inserted { place(change.index, from: nil, change) }
    for change in moved { place(change.newIndex ?? -1, from: change.index, change) }
    let movedFrom = Set(moved.map(\.index))
    var staying = old.indices.filter { !deleted.contains($0) && !movedFrom.contains($0) }.makeIterator()
    for index in origin.indices where origin[index] == nil {
        guard let from = staying.next() else { problems.append("too few sections to fill new index \(index)"); break }
        origin[index] = .some(from)
        names[index] = old[from].name
        identifiers[index] = old[from].identifier
    }
    if staying.next() != nil { problems.append("sections left over after filling \(newCount)") }
    for change in batch.sectionChanges where change.kind == .update {
        guard let index = change.newIndex, names.indices.contains(index), identifiers[index] == change.identifier else {
            problems.append("section update of \(change.identifier) to new index \(change.newIndex ?? -1), which does not hold it")
            continue
        }
        names[index] = change.name
    }
    guard problems.isEmpty else { return ([], problems) }

    // Rows: removed at their old paths, added at their new ones.
    var removed: [Int: Set<Int>] = [:]
    var incoming: [Int: [(row: Int, id: Int64)]] = [:]
    for change in batch.rowChanges {
        if change.kind == .delete || change.kind == .move {
            guard let path = change.indexPath, old.indices.contains(path.section), old[path.section].ids.indices.contains(path.row) else {
                problems.append("\(change.kind) of \(change.id) from \(change.indexPath.map { "\($0)" } ?? "nil"), outside the old result")
                continue
            }
            if old[path.section].ids[path.row] != change.id {
                problems.append("\(change.kind) of \(change.id) from \(path), which holds \(old[path.section].ids[path.row])")
            }
            if deleted.contains(path.section), change.kind == .move {
                problems.append("move of \(change.id) out of a deleted section")
            }
            if !removed[path.section, default: []].insert(path.row).inserted { problems.append("two events remove \(path)") }
        }
        if change.kind == .insert || change.kind == .move {
            guard let path = change.newIndexPath else { problems.append("\(change.kind) of \(change.id) without a new path"); continue }
            incoming[path.section, default: []].append((path.row, change.id))
        }
    }
    var result: [JoinedSection] = []
    for index in origin.indices {
        let from = origin[index] ?? nil
        let survivors = from.map { s in old[s].ids.enumerated().filter { !(removed[s]?.contains($0.offset) ?? false) }.map(\.element) } ?? []
        let adding = (incoming[index] ?? []).sorted { $0.row < $1.row }
        var ids = [Int64?](repeating: nil, count: survivors.count + adding.count)
        for (row, id) in adding {
            guard ids.indices.contains(row), ids[row] == nil else { problems.append("insert or move of \(id) to [\(index), \(row)], taken or out of \(ids.count)"); continue }
            ids[row] = id
        }
        var rest = survivors.makeIterator()
        for row in ids.indices where ids[row] == nil { ids[row] = rest.next() }
        result.append(JoinedSection(identifier: identifiers[index] ?? "?", name: names[index] ?? "?", ids: ids.compactMap { $0 }))
    }
    for change in batch.rowChanges where change.kind == .update {
        guard let old = change.indexPath, let path = change.newIndexPath, result.indices.contains(path.section),
              result[path.section].ids.indices.contains(path.row), result[path.section].ids[path.row] == change.id else {
            problems.append("update of \(change.id) at \(change.newIndexPath.map { "\($0)" } ?? "nil"), which does not hold it")
            continue
        }
        if removed[old.section]?.contains(old.row) == true { problems.append("update of \(change.id), which the batch also removes") }
    }
    return (result, problems)
}
