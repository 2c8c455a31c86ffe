// tap-loop DATABASE TEAM COUNT
//
// A helper of the durability tests: taps TEAM COUNT times through the store's tap (DATABASE: a
// SQLite file, or a postgres:// URL for PostgresTeamStore), one commit per tap, and after each
// commit writes the team's wins on a line of its own, unbuffered, so a line on standard output
// is an acknowledged tap. Errors go to standard error, one line each.
import Foundation
import WorldCup
import WorldCupPostgres
import WorldCupSQLite

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: tap-loop DATABASE TEAM COUNT\n".utf8))
    exit(2)
}
do {
    let database = arguments[1]
    let scoreboard: any TeamStore = PostgresLocation.isURL(database)
        ? try PostgresTeamStore(location: PostgresLocation(url: database), seed: Seed.bundled())
        : try SQLiteTeamStore(databaseURL: URL(fileURLWithPath: database), seed: Seed.bundled())
    for _ in 0..<count {
        let team = try scoreboard.tap(named: arguments[2])
        let line = Array("\(team.wins)\n".utf8)
        // One write(2) per line: a pipe takes it whole, and nothing waits in a buffer.
        guard write(STDOUT_FILENO, line, line.count) == line.count else { exit(3) }
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
