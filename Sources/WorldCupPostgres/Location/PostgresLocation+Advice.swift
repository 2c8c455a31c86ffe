import Foundation
import WorldCup

extension PostgresLocation {
    /// Whether the database is one the server keeps for itself: `postgres` (the maintenance
    /// database every tool connects to) or a `template…` one (copied into every new
    /// database). worldcup makes no board there in the default schema: a URL that names no
    /// database, with the user `postgres`, would otherwise quietly put one in the maintenance
    /// database. A board in a schema of its own (`options=-c search_path=worldcup`) may live in
    /// `postgres`, the database hosted servers (Supabase, RDS) hand out.
    public var isServersOwnDatabase: Bool {
        guard schema == nil else { return url.database.hasPrefix("template") }
        return url.database == "postgres" || url.database.hasPrefix("template")
    }

    /// The first schema of a `search_path` that `options` sets (`-c search_path=a,b`,
    /// `-csearch_path=a`, `--search_path=a`), unquoted; nil when it sets none, or only the
    /// default ones (`"$user"`, `public`).
    static func searchPathSchema(in options: String) -> String? {
        let words = options.split(separator: " ").map(String.init)
        var value: String?
        for (index, word) in words.enumerated() {
            for prefix in ["-csearch_path=", "--search_path=", "--search-path="] where word.hasPrefix(prefix) {
                value = String(word.dropFirst(prefix.count))
            }
            if word == "-c", index + 1 < words.count, words[index + 1].hasPrefix("search_path=") {
                value = String(words[index + 1].dropFirst("search_path=".count))
            }
        }
        guard var first = value?.split(separator: ",").first.map({ $0.trimmingCharacters(in: .whitespaces) }) else { return nil }
        if first.count >= 2, first.hasPrefix("\""), first.hasSuffix("\"") {
            first = String(first.dropFirst().dropLast())
        } else {
            first = first.lowercased()
        }
        return first.isEmpty || first == "$user" || first == "public" ? nil : first
    }

    /// The `createdb` command that makes the database `name` on this server, as this user.
    public func createdbCommand(_ name: String) -> String {
        let host = url.socketDirectory ?? url.host
        return WorldCupError.shellCommand("createdb", "-h", host, "-p", String(url.port), "-U", url.user, name)
    }

    /// The sentence that refuses to make a board in one of the server's own databases.
    var serversOwnDatabaseRefusal: WorldCupError {
        WorldCupError("The database \(databaseAndServer) belongs to the server itself, so worldcup makes no board there: create one (\(createdbCommand("worldcup"))) and name it at the end of the URL (postgres://…/worldcup), or give the board a schema of its own there (?options=-c%20search_path%3Dworldcup).")
    }

    /// The sentence for a database the server does not have. A URL that names none means
    /// the user's own (as for psql), which the user may not know.
    var missingDatabase: WorldCupError {
        if url.database == url.user {
            return WorldCupError("There is no database \(databaseAndServer), the one named after the user that a URL without a database means (as for psql): create one (\(createdbCommand("worldcup"))) and name it at the end of the URL (postgres://…/worldcup).")
        }
        return WorldCupError("There is no database \(databaseAndServer): create it (\(createdbCommand(url.database))), or name another at the end of the URL.")
    }
}
