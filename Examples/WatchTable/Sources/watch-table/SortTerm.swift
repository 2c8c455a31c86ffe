import ArgumentParser

/// One `--sort` option: a column, ascending unless written `COLUMN:desc`.
struct SortTerm: ExpressibleByArgument {
    var column: String
    var ascending: Bool

    init?(argument: String) {
        let parts = argument.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let name = parts.first, !name.isEmpty else { return nil }
        column = String(name)
        switch parts.count == 2 ? parts[1].lowercased() : "asc" {
        case "asc": ascending = true
        case "desc": ascending = false
        default: return nil
        }
    }
}

/// The `--join` option: `TABLE:FOREIGN_KEY:TITLE`, the related table, the watched table's column
/// holding a related row's id, and the related column titling its section.
struct JoinTerm: ExpressibleByArgument {
    var table: String
    var foreignKey: String
    var title: String

    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts.contains(where: \.isEmpty) else { return nil }
        (table, foreignKey, title) = (parts[0], parts[1], parts[2])
    }
}
