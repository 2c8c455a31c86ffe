import Foundation
import WorldCup

extension PostgresLocation {
    /// Whether the database is one the server keeps for itself: `postgres` (the maintenance
    /// database every tool connects to) or a `template…` one (copied into every new
    /// database). worldcup makes no board there: a URL that names no database, with the user
    /// `postgres`, would otherwise quietly put one in the maintenance database.
    public var isServersOwnDatabase: Bool {
        url.database == "postgres" || url.database.hasPrefix("template")
    }

    /// The `createdb` command that makes the database `name` on this server, as this user.
    public func createdbCommand(_ name: String) -> String {
        let host = url.socketDirectory ?? url.host
        return WorldCupError.shellCommand("createdb", "-h", host, "-p", String(url.port), "-U", url.user, name)
    }

    /// The sentence that refuses to make a board in one of the server's own databases.
    var serversOwnDatabaseRefusal: WorldCupError {
        WorldCupError("The database \(databaseAndServer) belongs to the server itself, so worldcup makes no board there: create one (\(createdbCommand("worldcup"))) and name it at the end of the URL (postgres://…/worldcup).")
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
