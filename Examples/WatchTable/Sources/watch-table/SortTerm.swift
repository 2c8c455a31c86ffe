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
