import Foundation
@testable import LiveResults

/// Checks one delivered batch against the contract of LiveResults' events (README, "What the
/// events mean"), given the result before and after.
///
/// The batch is applied to the old result the way a batch-updating table view applies it:
/// row deletes and the old places of row moves against the old result, section deletes and
/// the old places of section moves against the old result, then section inserts and the new
/// places of section moves (a moved section brings its remaining rows), then row inserts and
/// the new places of row moves in ascending order; updates (sections and rows) reconfigure
/// at their new index. Every other row and section keeps its relative order. The outcome
/// must be the new result, and no more rows or sections may be reported as moved than the
/// batch needs (rules 2 and 12). Sections are matched by identity (`Layout.identifier`, the
/// name but through a relationship); counts hold per identity (rule 13).
///
/// Returns the violations found, as sentences; an empty array means the batch is correct.
///
/// - Parameters:
///   - old: the result before the commit, as a fresh fetch gave it.
///   - new: the result after the commit, as a fresh fetch gives it.
///   - events: the delegate calls of the commit (empty when nothing was delivered).
///   - touched: the rows the transaction wrote, or nil to skip rule 6.
///   - dataChanged: rows whose stored values changed; those in both results must be reported.
///   - changedSections: through a relationship, the identifiers of the sections whose related
///     row changed (title or order). Given, a kept section is reported exactly when it is one
///     of them (an order-only change is an update, rule 11) and only they move, as few as
///     possible among them (rule 12). Nil (not known): an update of a section whose name did
///     not change is allowed, and only the order of the sections not moved is checked.
func batchViolations(
    old: [Layout],
    new: [Layout],
    events: [Recorder.Event],
    touched: Set<RecordID>? = nil,
    dataChanged: Set<RecordID> = [],
    changedSections: Set<String>? = nil
) -> [String] {
    var problems: [String] = []
    let oldIDs = Set(old.flatMap(\.ids))
    let newIDs = Set(new.flatMap(\.ids))
    let reportable = dataChanged.intersection(oldIDs).intersection(newIDs)

    if events.isEmpty {
        if old != new { problems.append("the result changed but no batch was delivered") }
        if !reportable.isEmpty { problems.append("rows \(reportable.sorted()) changed but no batch was delivered") }
        return problems
    }

    // One batch: willChange, section changes, row changes, didChange.
    guard events.first == .willChange, events.last == .didChange,
          events.filter({ $0 == .willChange }).count == 1, events.filter({ $0 == .didChange }).count == 1
    else {
        return ["the events are not one batch between willChange and didChange: \(events)"]
    }
    if events.count == 2 { problems.append("an empty batch was delivered") }

    struct RowEvent {
        var kind: ChangeKind
        var id: RecordID
        var from: IndexPath?
        var to: IndexPath?
    }
    var sectionDeletes: [(index: Int, name: String, count: Int)] = []
    var sectionInserts: [(index: Int, name: String, count: Int)] = []
    var sectionKept: [(kind: ChangeKind, from: Int, to: Int, name: String, count: Int)] = []
    var rows: [RowEvent] = []
    var sawRow = false
    var sawSectionInsert = false
    for event in events.dropFirst().dropLast() {
        switch event {
        case let .section(kind, index, name, count):
            if sawRow { problems.append("section change \(event) comes after a row change") }
            switch kind {
            case .delete:
                if sawSectionInsert { problems.append("section delete \(event) comes after a section insert") }
                sectionDeletes.append((index, name, count))
            case .insert:
                sawSectionInsert = true
                sectionInserts.append((index, name, count))
            default:
                problems.append("section change of kind \(kind) without a new index: \(event)")
            }
        case let .sectionKept(kind, from, to, name, count):
            if sawRow { problems.append("section change \(event) comes after a row change") }
            if kind != .move && kind != .update { problems.append("section \(kind) with a new index: \(event)") }
            sectionKept.append((kind, from, to, name, count))
        case let .row(kind, id, from, to):
            sawRow = true
            rows.append(RowEvent(kind: kind, id: id, from: from, to: to))
        default:
            problems.append("unexpected event inside the batch: \(event)")
        }
    }
    if sectionDeletes.map(\.index) != sectionDeletes.map(\.index).sorted(by: >) {
        problems.append("section deletes are not in descending order: \(sectionDeletes.map(\.index))")
    }
    if sectionInserts.map(\.index) != sectionInserts.map(\.index).sorted() {
        problems.append("section inserts are not in ascending order: \(sectionInserts.map(\.index))")
    }
    let deletedSections = Set(sectionDeletes.map(\.index))
    let insertedSections = Set(sectionInserts.map(\.index))
    if deletedSections.count != sectionDeletes.count { problems.append("a section is deleted twice") }
    if insertedSections.count != sectionInserts.count { problems.append("a section is inserted twice") }

    if sectionKept.map(\.to) != sectionKept.map(\.to).sorted() {
        problems.append("section moves and updates are not in ascending new order: \(sectionKept.map(\.to))")
    }
    if Set(sectionKept.map(\.from)).count != sectionKept.count || Set(sectionKept.map(\.to)).count != sectionKept.count {
        problems.append("a section is moved or updated twice")
    }
    let movedSections = Set(sectionKept.filter { $0.kind == .move }.map(\.from))
    let keptFrom = Set(sectionKept.map(\.from))
    for section in sectionKept {
        let text = "section \(section.kind) #\(section.from) -> #\(section.to)"
        guard old.indices.contains(section.from), new.indices.contains(section.to) else {
            problems.append("\(text) is outside the old (\(old.count)) or new (\(new.count)) sections")
            continue
        }
        if deletedSections.contains(section.from) || insertedSections.contains(section.to) {
            problems.append("\(text) is also deleted or inserted")
        }
        if old[section.from].identifier != new[section.to].identifier {
            problems.append("\(text): old section \(old[section.from]) and new section \(new[section.to]) are not one section")
        }
        if Array(new[section.to].name.utf8) != Array(section.name.utf8) {
            problems.append("\(text) names \(escaped(section.name)), the new section is \(escaped(new[section.to].name))")
        }
        if section.count != new[section.to].ids.count {
            problems.append("\(text) reports \(section.count) rows, it has \(new[section.to].ids.count)")
        }
        if let changedSections, !changedSections.contains(new[section.to].identifier) {
            problems.append("\(text) is reported though its related row did not change (rule 12)")
        }
    }

    for section in sectionDeletes {
        if !old.indices.contains(section.index) {
            problems.append("section delete at \(section.index) is outside the old result (\(old.count) sections)")
        } else if Array(old[section.index].name.utf8) != Array(section.name.utf8) {
            problems.append("section delete at \(section.index) names \(escaped(section.name)), the old section is \(escaped(old[section.index].name))")
        }
        if section.count != 0 { problems.append("deleted section \(section.index) reports \(section.count) rows") }
    }
    for section in sectionInserts {
        if !new.indices.contains(section.index) {
            problems.append("section insert at \(section.index) is outside the new result (\(new.count) sections)")
        } else {
            if Array(new[section.index].name.utf8) != Array(section.name.utf8) {
                problems.append("section insert at \(section.index) names \(escaped(section.name)), the new section is \(escaped(new[section.index].name))")
            }
            if section.count != new[section.index].ids.count {
                problems.append("inserted section \(section.index) reports \(section.count) rows, it has \(new[section.index].ids.count)")
            }
        }
    }

    func id(in layout: [Layout], at path: IndexPath) -> RecordID? {
        guard path.count == 2, layout.indices.contains(path.section), layout[path.section].ids.indices.contains(path.row) else { return nil }
        return layout[path.section].ids[path.row]
    }

    // Each row event on its own: the right index spaces (table of the note, rule 5) and rule 6.
    for row in rows {
        let text = "row \(row.kind) of \(row.id) \(row.from.map(pathText) ?? "nil") -> \(row.to.map(pathText) ?? "nil")"
        switch row.kind {
        case .insert:
            if row.from != nil || row.to == nil { problems.append("\(text): an insert has only a new index path") }
        case .delete:
            if row.from == nil || row.to != nil { problems.append("\(text): a delete has only an old index path") }
        case .move:
            if row.from == nil || row.to == nil { problems.append("\(text): a move needs both index paths") }
        case .update:
            if row.from == nil || row.to == nil { problems.append("\(text): an update needs both index paths (rule 5)") }
        }
        if let from = row.from, id(in: old, at: from) != row.id {
            problems.append("\(text): the old result holds \(id(in: old, at: from).map(String.init) ?? "nothing") at \(pathText(from))")
        }
        if let to = row.to, id(in: new, at: to) != row.id {
            problems.append("\(text): the new result holds \(id(in: new, at: to).map(String.init) ?? "nothing") at \(pathText(to))")
        }
        if let touched, !touched.contains(row.id) {
            problems.append("\(text): the transaction did not touch row \(row.id) (rule 6)")
        }
        if row.kind == .move || row.kind == .update {
            if let from = row.from, deletedSections.contains(from.section) {
                problems.append("\(text): a \(row.kind) out of a deleted section (rule 4)")
            }
            if let to = row.to, insertedSections.contains(to.section) {
                problems.append("\(text): a \(row.kind) into an inserted section (rule 4)")
            }
        }
    }

    // Rule 3 and the rest of 4: how often each row is reported.
    let froms = rows.compactMap(\.from)
    let tos = rows.compactMap(\.to)
    if Set(froms).count != froms.count { problems.append("two row changes share an old index path (rule 3): \(froms.map(pathText))") }
    if Set(tos).count != tos.count { problems.append("two row changes share a new index path (rule 3): \(tos.map(pathText))") }
    let byID = Dictionary(grouping: rows, by: \.id)
    for (rowID, changes) in byID.sorted(by: { $0.key < $1.key }) {
        let kinds = changes.map(\.kind)
        let wasIn = oldIDs.contains(rowID)
        let isIn = newIDs.contains(rowID)
        switch (wasIn, isIn) {
        case (true, false):
            if kinds != [.delete] { problems.append("row \(rowID) left the result and is reported as \(kinds) (rule 7)") }
        case (false, true):
            if kinds != [.insert] { problems.append("row \(rowID) entered the result and is reported as \(kinds) (rule 7)") }
        case (false, false):
            problems.append("row \(rowID) is in neither result and is reported as \(kinds)")
        case (true, true):
            if kinds == [.update] || kinds == [.move] { break }
            if Set(kinds) == [.delete, .insert], kinds.count == 2 {
                let delete = changes.first { $0.kind == .delete }!
                let insert = changes.first { $0.kind == .insert }!
                let acrossSection = delete.from.map { deletedSections.contains($0.section) } == true
                    || insert.to.map { insertedSections.contains($0.section) } == true
                if !acrossSection {
                    problems.append("row \(rowID) is reported as delete + insert without a section insert or delete (rule 3/4)")
                }
            } else {
                problems.append("row \(rowID) is reported as \(kinds) (rule 3)")
            }
        }
    }
    for rowID in oldIDs.symmetricDifference(newIDs) where byID[rowID] == nil {
        problems.append("row \(rowID) \(oldIDs.contains(rowID) ? "left" : "entered") the result without being reported (rule 7)")
    }
    for rowID in reportable.sorted() where byID[rowID] == nil {
        problems.append("row \(rowID) changed but is not reported")
    }

    // Rule 1, 2, 12 and 13: the sections that survive (by identity), their places and counts.
    let oldSurvivors = old.indices.filter { !deletedSections.contains($0) }
    let newSurvivors = new.indices.filter { !insertedSections.contains($0) }
    // Sections keyed by a column's value may share an identifier (NULL and "" are both named
    // ""): the k-th old one of an identifier is the k-th new one.
    var newByIdentifier = Dictionary(grouping: newSurvivors, by: { Array(new[$0].identifier.utf8) })
    var newIndexOfOld: [Int: Int] = [:]
    for o in oldSurvivors {
        if let n = newByIdentifier[Array(old[o].identifier.utf8)]?.first {
            newIndexOfOld[o] = n
            newByIdentifier[Array(old[o].identifier.utf8)]!.removeFirst()
        }
    }
    if oldSurvivors.count != newSurvivors.count {
        problems.append("\(old.count) sections - \(deletedSections.count) deleted + \(insertedSections.count) inserted is not \(new.count)")
    } else if let lost = oldSurvivors.first(where: { newIndexOfOld[$0] == nil }) {
        problems.append("old section \(lost) \(old[lost]) is neither deleted nor in the new result's kept sections")
    } else {
        for section in sectionKept where newIndexOfOld[section.from] != section.to {
            problems.append("section \(section.kind) #\(section.from) -> #\(section.to): that section is at #\(newIndexOfOld[section.from].map(String.init) ?? "nil")")
        }
        for o in oldSurvivors where !keptFrom.contains(o) {
            if Array(old[o].name.utf8) != Array(new[newIndexOfOld[o]!].name.utf8) {
                problems.append("old section \(o) \(escaped(old[o].name)) becomes new section \(newIndexOfOld[o]!) \(escaped(new[newIndexOfOld[o]!].name)) without a section update, move, or delete and insert (rule 11)")
            }
        }
        // Rule 12: the sections not moved keep their relative order, and no more move than needed.
        let unmoved = oldSurvivors.filter { !movedSections.contains($0) }.map { newIndexOfOld[$0]! }
        if unmoved != unmoved.sorted() {
            problems.append("sections that are not reported moved changed their relative order (rule 12)")
        }
        if let changedSections {
            for o in oldSurvivors where changedSections.contains(old[o].identifier) && !keptFrom.contains(o) {
                problems.append("old section \(o) \(old[o]): its related row changed and it is not reported (rule 11)")
            }
        }
        // Only sections whose related row changed may move, as few as possible among them; not
        // known, they are the sections reported (every changed one is: moved or updated).
        let changed = { (o: Int) in changedSections?.contains(old[o].identifier) ?? keptFrom.contains(o) }
        let needed = oldSurvivors.filter(changed).count
            - largestInOrderSubset(oldSurvivors.sorted { newIndexOfOld[$0]! < newIndexOfOld[$1]! }.map { ($0, fixed: !changed($0)) })
        if movedSections.count > needed {
            problems.append("\(movedSections.count) sections are reported moved where \(needed) suffice (rule 12)")
        }
        func count(_ kinds: Set<ChangeKind>, from section: Int) -> Int {
            rows.filter { kinds.contains($0.kind) && $0.from?.section == section }.count
        }
        func count(_ kinds: Set<ChangeKind>, to section: Int) -> Int {
            rows.filter { kinds.contains($0.kind) && $0.to?.section == section }.count
        }
        let survivorPairs = oldSurvivors.map { (o: $0, n: newIndexOfOld[$0]!) }
        for (o, n) in survivorPairs {
            let expected = old[o].ids.count - count([.delete, .move], from: o) + count([.insert, .move], to: n)
            if expected != new[n].ids.count {
                problems.append("section \(escaped(new[n].name)) (old \(o), new \(n)): \(old[o].ids.count) rows - deletes - moves out + inserts + moves in = \(expected), but it holds \(new[n].ids.count) (rule 1)")
            }
        }
        for o in deletedSections where old.indices.contains(o) {
            if count([.delete, .move], from: o) != old[o].ids.count {
                problems.append("deleted section \(o) held \(old[o].ids.count) rows, \(count([.delete, .move], from: o)) are reported gone (rule 1)")
            }
        }
        for n in insertedSections where new.indices.contains(n) {
            if count([.insert, .move], to: n) != new[n].ids.count {
                problems.append("inserted section \(n) holds \(new[n].ids.count) rows, \(count([.insert, .move], to: n)) are reported in (rule 1)")
            }
        }
        for row in rows {
            guard let from = row.from, let to = row.to else { continue }
            if row.kind == .update, newIndexOfOld[from.section] != to.section {
                problems.append("row \(row.id) is reported as an update \(pathText(from)) -> \(pathText(to)) but changed section")
            }
        }
        // Rule 2: as few moves as possible. Within each surviving section, the rows nobody
        // reported keep their order; of the reported rows that stay in the section, as many as
        // fit in order with them can be updates, and only the others need to be moves.
        let reportedKinds = Dictionary(rows.map { ($0.id, $0.kind) }, uniquingKeysWith: { first, _ in first })
        for (o, n) in survivorPairs {
            let oldRows = Dictionary(uniqueKeysWithValues: old[o].ids.enumerated().map { ($1, $0) })
            let staying = new[n].ids.compactMap { id in oldRows[id].map { (id: id, oldRow: $0) } }
            let reported = staying.filter { reportedKinds[$0.id] != nil }
            let moves = reported.filter { reportedKinds[$0.id] == .move }.count
            let needed = reported.count - largestInOrderSubset(staying.map { ($0.oldRow, fixed: reportedKinds[$0.id] == nil) })
            if moves > needed {
                problems.append("section \(escaped(new[n].name)) reports \(moves) moves where \(needed) suffice (rule 2)")
            }
        }
    }

    // Apply the batch to the old result as a batch-updating table view does, and compare.
    var mirror = old
    var applicable = true
    let removals = rows.filter { $0.kind == .delete || $0.kind == .move }.compactMap { row in row.from.map { (row.id, $0) } }
    for (_, from) in removals.sorted(by: { $0.1 > $1.1 }) {
        guard mirror.indices.contains(from.section), mirror[from.section].ids.indices.contains(from.row) else {
            applicable = false
            break
        }
        mirror[from.section].ids.remove(at: from.row)
    }
    // Sections leave from the old state: deleted ones for good, moved ones to come back.
    var travelling: [Int: Layout] = [:] // by new index
    if applicable {
        let moves = Dictionary(sectionKept.filter { $0.kind == .move }.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
        for index in deletedSections.union(moves.keys).sorted(by: >) {
            guard mirror.indices.contains(index) else { applicable = false; break }
            if let to = moves[index] {
                travelling[to] = mirror[index]
            } else if !mirror[index].ids.isEmpty {
                problems.append("deleted section \(index) still holds rows \(mirror[index].ids) after the row deletes")
            }
            mirror.remove(at: index)
        }
    }
    if applicable {
        var arriving: [(index: Int, layout: Layout)] = sectionInserts.map { ($0.index, Layout($0.name, [], identifier: new.indices.contains($0.index) ? new[$0.index].identifier : $0.name)) }
        arriving += travelling.map { ($0.key, $0.value) }
        for section in arriving.sorted(by: { $0.index < $1.index }) {
            guard section.index <= mirror.count else { applicable = false; break }
            mirror.insert(section.layout, at: section.index)
        }
    }
    if applicable {
        let insertions = rows.filter { $0.kind == .insert || $0.kind == .move }.compactMap { row in row.to.map { (row.id, $0) } }
        for (rowID, to) in insertions.sorted(by: { $0.1 < $1.1 }) {
            guard mirror.indices.contains(to.section), to.row <= mirror[to.section].ids.count else {
                applicable = false
                break
            }
            mirror[to.section].ids.insert(rowID, at: to.row)
        }
    }
    // Moved and updated sections reconfigure their headers at their new index.
    if applicable {
        for section in sectionKept {
            guard mirror.indices.contains(section.to) else { applicable = false; break }
            mirror[section.to].name = section.name
        }
    }
    if !applicable {
        problems.append("the batch cannot be applied to the old result: an index path is out of range")
    } else if mirror != new {
        problems.append("the batch applied to the old result gives \(mirror), the database holds \(new)")
    }
    return problems
}

/// The most elements of `rows` (old row numbers, in new order) that can keep their relative
/// order, counting only the elements that are not fixed; every fixed element must be kept.
/// Returns how many of the non-fixed ones fit. Quadratic: for the small results of tests.
func largestInOrderSubset(_ rows: [(oldRow: Int, fixed: Bool)]) -> Int {
    // The heaviest increasing run, where a fixed element weighs more than all the others
    // together: the heaviest run keeps every fixed element (when they are in order at all).
    let heavy = rows.count + 1
    var best = [Int](repeating: 0, count: rows.count)
    for i in rows.indices {
        let weight = rows[i].fixed ? heavy : 1
        best[i] = weight
        for j in 0..<i where rows[j].oldRow < rows[i].oldRow {
            best[i] = max(best[i], best[j] + weight)
        }
    }
    let total = best.max() ?? 0
    let fixedCount = rows.filter(\.fixed).count
    return total - fixedCount * heavy
}
