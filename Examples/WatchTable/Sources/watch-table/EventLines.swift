import Foundation
import LiveResults

/// The lines watch-table prints for one element of `changes()`, one event a line.
enum EventLines {
    static func lines(for change: ResultsChange) -> [String] {
        switch change {
        case .reset:
            return ["reset"]
        case .batch(let batch, _):
            // Moves and updates (sections through --join) go from their old index to their new one.
            let sections = batch.sectionChanges.map { change in
                "section \(change.kind) \(change.index)" + (change.newIndex.map { " -> \($0)" } ?? "") + " \(quoted(change.name))"
            }
            let rows = batch.rowChanges.map { change -> String in
                let from = change.indexPath.map(place) ?? ""
                let to = change.newIndexPath.map(place) ?? ""
                switch change.kind {
                case .insert: return "insert \(change.id) -> \(to)"
                case .delete: return "delete \(change.id) \(from)"
                case .move: return "move \(change.id) \(from) -> \(to)"
                case .update: return "update \(change.id) \(from) -> \(to)"
                }
            }
            return sections + rows
        }
    }

    /// `[section,row]`.
    static func place(_ path: IndexPath) -> String {
        "[\(path.section),\(path.row)]"
    }

    /// A section name in double quotes, with quotes, backslashes and line breaks escaped.
    static func quoted(_ name: String) -> String {
        var text = "\""
        for character in name {
            switch character {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default: text.append(character)
            }
        }
        return text + "\""
    }
}
