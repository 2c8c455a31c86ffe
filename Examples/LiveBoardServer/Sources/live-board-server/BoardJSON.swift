import Foundation
import LiveResults

/// What the page receives, as Server-Sent Events of JSON: the whole board (on connecting, and
/// again after a reset), or a batch of changes in the index spaces a table view applies them in.
enum BoardJSON {
    /// One team, as a row shows it: the value the live query makes of each team. `Equatable`,
    /// so that the query sends no event for a change the page would not show.
    struct Row: Encodable, Equatable, Sendable {
        var id: Int64
        var name: String
        var wins: Int
    }

    /// One section: a zone.
    struct Section: Encodable {
        /// The zone's id, as text: what identifies the section across renames and moves.
        var id: String
        var title: String
        var rows: [Row]
    }

    /// The whole board.
    struct Snapshot: Encodable {
        var version: Int
        var sections: [Section]
    }

    /// A section inserted (`index` in the new board), deleted (`index` in the old one), moved
    /// or updated (`index` old, `newIndex` new).
    struct SectionEvent: Encodable {
        var kind: String
        var index: Int
        var newIndex: Int?
        var id: String
        var title: String
    }

    /// A row inserted, deleted, moved or updated: `from` is its [section, row] in the old board
    /// (none for an insert), `to` in the new one (none for a delete), `team` its values now.
    struct RowEvent: Encodable {
        var kind: String
        var id: Int64
        var from: [Int]?
        var to: [Int]?
        var team: Row?
    }

    /// One step of the board: section events, then row events (LiveResults' `ChangeBatch`).
    struct Batch: Encodable {
        var version: Int
        var sections: [SectionEvent]
        var rows: [RowEvent]
    }

    /// One element of a browser's subscription as the event the page reads. The page applies
    /// the batches of a `batches` event in order (one here: a late browser's is already merged).
    static func event(_ update: LiveQueryUpdate<Row>) throws -> String {
        switch update {
        case .snapshot(let snapshot):
            let board = Snapshot(version: snapshot.version, sections: snapshot.sections.map { section in
                Section(id: section.identifier, title: section.name, rows: section.values)
            })
            // retry: a browser whose stream broke (the server restarted) tries again after a second.
            return "retry: 1000\nid: \(snapshot.version)\nevent: snapshot\ndata: \(try text(board))\n\n"
        case .batch(let batch):
            let sections = batch.changes.sectionChanges.map { change in
                SectionEvent(kind: change.kind.name, index: change.index, newIndex: change.newIndex, id: change.identifier, title: change.name)
            }
            let rows = batch.changes.rowChanges.map { change in
                RowEvent(kind: change.kind.name, id: change.id, from: change.indexPath.map { [$0.section, $0.row] },
                         to: change.newIndexPath.map { [$0.section, $0.row] }, team: batch.values[change.id])
            }
            return "id: \(batch.version)\nevent: batches\ndata: [\(try text(Batch(version: batch.version, sections: sections, rows: rows)))]\n\n"
        }
    }

    /// Compact JSON on one line: an event-stream `data:` line holds it as it is.
    static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

extension ChangeKind {
    /// The kind as the page reads it.
    var name: String {
        switch self {
        case .insert: "insert"
        case .delete: "delete"
        case .move: "move"
        case .update: "update"
        }
    }
}
