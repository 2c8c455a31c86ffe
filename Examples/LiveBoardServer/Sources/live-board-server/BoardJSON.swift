import Foundation
import LiveResults
import WorldCup

/// What the page receives, as JSON: the whole board (on connecting, and again after a reset),
/// or one batch of changes in the index spaces a table view applies them in.
enum BoardJSON {
    /// One team, as a row shows it.
    struct Row: Encodable {
        var id: Int64
        var name: String
        var wins: Int
        /// The title of its section.
        var zone: String
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
