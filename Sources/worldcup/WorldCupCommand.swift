import ArgumentParser
import Foundation
import LiveResults
import TerminalUI
import WorldCup
import WorldCupApp
import WorldCupStores

/// `worldcup`: the scoreboard, and commands that read and change it from a shell.
@main
struct WorldCupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worldcup",
        abstract: "The World Cup scoreboard: a live, sectioned table of teams in your terminal.",
        discussion: """
            Without a subcommand, worldcup opens the scoreboard. Its keys: ↑ ↓ move, Enter gives \
            the team one more win, + adds a secret team, d deletes one, e edits one, u undoes this \
            board's last change (Ctrl-R redoes it), / filters by name, ? shows every key, q quits. --read-only (or WORLDCUP_READ_ONLY=1) only watches: every change \
            shows, none can be made. A new database is seeded with the sample's 32 teams, built into \
            the program; --seed imports another file instead. The database is \
            $XDG_DATA_HOME/worldcup/WorldCup.sqlite (or ~/.local/share/worldcup/WorldCup.sqlite) \
            unless --database (or WORLDCUP_DATABASE) says otherwise; every open scoreboard shows \
            changes made by the others and by these commands at once.

            worldcup [--database PATH|URL] [--seed PATH] [--read-only] [--author NAME] \
            [--no-color] [--flags badges|emoji] [--theme light|dark|auto] opens the board; \
            --database, --seed, --read-only and --author go before or after a command's name \
            (worldcup --database X list, worldcup list --database X); backup and check take \
            --database only. Your changes are recorded under --author, else WORLDCUP_AUTHOR, \
            else $USER@hostname (someone@hostname when neither USER nor LOGNAME is set).

            To share one scoreboard across machines, give every one the same PostgreSQL \
            database (14 or later): --database postgres://user:password@host:5432/worldcup \
            (postgresql:// too; postgres:///worldcup?host=/run/postgresql for a Unix socket; \
            PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE fill in what the URL leaves out, \
            as for psql). TLS is libpq's: ?sslmode=verify-full&sslrootcert=ca.crt verifies the \
            server against its CA and name (PGSSLMODE, PGSSLROOTCERT, PGSSLCERT and PGSSLKEY \
            too), and passwords may come from ~/.pgpass (PGPASSFILE); the title says TLS when \
            the connection is encrypted. The first client creates the tables and imports the \
            seed, once; a database holding other tables is refused. A tap whose connection \
            fails on the way is sent again with the same id, so it never counts twice. A \
            server that does not answer within 5 seconds (connecting: connect_timeout) is \
            reported in one sentence; passwords are never shown. A user granted only SELECT \
            on the board's tables gets a read-only board, as with --read-only. Behind a pooler \
            in transaction mode (PgBouncer, hosted -pooler hosts), where LISTEN hears nothing, \
            the title says "pooler: updates every 1 s" and other machines' changes show within \
            a second.
            """,
        version: version,
        subcommands: [Board.self, List.self, Tap.self, Add.self, Delete.self, Edit.self, Zones.self, ZoneCommand.self, Undo.self, Redo.self, History.self, Export.self, Backup.self, Reset.self, Check.self],
        defaultSubcommand: Board.self
    )

    /// Parses the arguments with the shared options before a command's name moved after it
    /// (`OptionOrder`), then runs the command.
    static func main() {
        let names = configuration.subcommands.map { $0._commandName }
        let commands = Set(names + ["help"])
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let unknown = OptionOrder.unknownCommand(in: arguments, commands: commands) {
            let sentence = "Error: “\(WorldCupError.quotable(unknown))” is not a worldcup command; the commands are \(names.dropLast().joined(separator: ", ")) and \(names.last ?? "") (worldcup help COMMAND explains one).\n"
            FileHandle.standardError.write(Data(sentence.utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        main(OptionOrder.arranged(arguments, commands: commands))
    }

    /// What `worldcup --version` prints. Raise it with each release.
    static let version = "1.0.0"
}

/// The options every command shares: where the database and the seed are.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(databaseHelp, valueName: "path|url"))
    var database: String?

    @Option(name: .long, help: ArgumentHelp("The seed imported into an empty database (default: the built-in seed, the sample's 32 teams).", valueName: "path"))
    var seed: String?

    @Flag(name: .customLong("read-only"), help: "Only watch: the board follows every change but makes none (Enter, +, d, e and u are refused, and so are tap, add, delete, edit, undo and reset); nothing is written, not even to set up a new database. Also when WORLDCUP_READ_ONLY=1. A PostgreSQL user that may only read gets such a board without it.")
    var readOnlyFlag = false

    @Option(help: ArgumentHelp("The name your changes are recorded under, in the history and on other boards (default: WORLDCUP_AUTHOR, else $USER@hostname, with $LOGNAME, else someone, when USER is not set).", valueName: "name"))
    var author: String?

    /// Whether the board only watches: `--read-only`, or `WORLDCUP_READ_ONLY` set (not 0).
    var readOnly: Bool {
        readOnlyFlag || ReadOnlyBoard.isAsked(environment: ProcessInfo.processInfo.environment)
    }

    /// Throws the read-only board's sentence when the person asked only to watch: for
    /// commands that change teams, before anything is opened.
    func refuseChangesIfReadOnly() throws {
        if readOnly { throw ReadOnlyBoard.asked.refusal }
    }

    /// Opens the teams for a command that changes them, once refused when the person asked
    /// only to watch.
    func openForChanges() throws -> any TeamStore {
        try refuseChangesIfReadOnly()
        return try open()
    }

    /// Where the teams are: `--database`, `WORLDCUP_DATABASE`, or the default file.
    func location() throws -> StoreLocation {
        try StoreLocation(database: database)
    }

    /// The seed's teams, read and checked: the file given with `--seed`, or the built-in seed.
    func seedTeams() throws -> [SeedTeam] {
        try seed.map { try Seed.load(from: URL(fileURLWithPath: $0)) } ?? Seed.bundled()
    }

    /// Opens the scoreboard for a command other than the board; read-only when asked
    /// (`--read-only`). A file given by hand must exist: only the board makes a new one
    /// (`openBoard`), so that a mistyped path is refused instead of becoming a new board.
    /// `reading`: the command only reads, so a file it may read but not write is refused
    /// with the option that would open it (`--read-only`).
    func open(reading: Bool = false) throws -> any TeamStore {
        try open(creating: false, reading: reading)
    }

    /// Opens the scoreboard for the board, importing the seed on first use (read and checked
    /// first); read-only when asked (`--read-only`).
    func openBoard() throws -> any TeamStore {
        try open(creating: true, reading: true, live: true)
    }

    private func open(creating: Bool, reading: Bool, live: Bool = false) throws -> any TeamStore {
        let location = try location()
        let seed = try seedTeams()
        let author = try Author.chosen(author)
        do {
            return try location.open(seed: seed, readOnly: readOnly, author: author, creating: creating, live: live)
        } catch {
            throw reading ? WorldCupError.suggestingReadOnly(error) : error
        }
    }
}

extension FlagStyle: ExpressibleByArgument {}
extension ThemeChoice: ExpressibleByArgument {}

/// Text from the database as a terminal may show it: anything a terminal would obey comes out
/// escaped. The rules keep such text out, but a file edited by other means may hold it.
func escapedForTerminal(_ text: String) -> String {
    WorldCupError.quotable(text, limit: .max)
}

extension WorldCupCommand {
    struct Board: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "board", abstract: "Open the scoreboard (the default).")

        @OptionGroup var store: StoreOptions

        @Flag(name: .customLong("no-color"), help: "Draw without colours (also when NO_COLOR is set).")
        var noColor = false

        @Option(help: ArgumentHelp("badges: three-letter codes on the flags' colours; emoji: emoji flags where the terminal draws them.", valueName: "badges|emoji"))
        var flags: FlagStyle = .badges

        @Option(help: ArgumentHelp("The colours for a dark or a light background; auto asks the terminal (OSC 11, or COLORFGBG) and falls back to dark. Default: WORLDCUP_THEME, else auto.", valueName: "light|dark|auto"))
        var theme: ThemeChoice?

        /// `--theme`, else `WORLDCUP_THEME`, else auto; a variable with another value is refused.
        func themeChoice(_ environment: [String: String]) throws -> ThemeChoice {
            if let theme { return theme }
            guard let value = environment["WORLDCUP_THEME"], !value.isEmpty else { return .auto }
            guard let choice = ThemeChoice(rawValue: value.lowercased()) else {
                throw WorldCupError("WORLDCUP_THEME is “\(WorldCupError.quotable(value))”; it takes light, dark or auto.")
            }
            return choice
        }

        func run() throws {
            try TerminalSession.checkInteractive()
            let environment = ProcessInfo.processInfo.environment
            // Checked before the database is opened: a bad value changes nothing.
            let theme = try themeChoice(environment)
            HeapTuning.keepFreedPages()
            let scoreboard = try store.openBoard()
            let noColorEnvironment = !(environment["NO_COLOR"] ?? "").isEmpty
            let status = try ScoreboardApp.run(scoreboard: scoreboard, color: !(noColor || noColorEnvironment), theme: theme,
                                               environment: environment, flags: flags)
            scoreboard.finish()
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the teams in scoreboard order.")

        @OptionGroup var store: StoreOptions

        @Flag(help: "Print a JSON array of teams (imageName, qualifyingZone, teamName, wins; keys sorted), as export --json writes it.")
        var json = false

        func run() throws {
            let teams = try store.open(reading: true).teams()
            if json {
                FileHandle.standardOutput.write(try TeamExport.json(teams))
                return
            }
            var zone: String?
            for team in teams {
                if team.qualifyingZone != zone {
                    print(escapedForTerminal(team.qualifyingZone))
                    zone = team.qualifyingZone
                }
                print("  \(escapedForTerminal(team.teamName))\tWins: \(team.wins)")
            }
        }
    }

    struct Tap: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add one win to a team.")

        @OptionGroup var store: StoreOptions

        @OptionGroup var teamName: TeamNameArgument

        func run() throws {
            let team = try store.openForChanges().tap(named: teamName.name)
            print("\(escapedForTerminal(team.teamName)): \(team.wins) \(team.wins == 1 ? "win" : "wins")")
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a secret team with no wins.")

        @OptionGroup var store: StoreOptions

        @Argument(help: "The new team's name.")
        var name: String

        @Option(help: "The qualifying zone; a new zone becomes a new section, and one spelt in another case or Unicode normalisation than a zone of the board takes the board's spelling.")
        var zone: String

        func run() throws {
            let team = try store.openForChanges().add(name: name, zone: zone)
            print("Added \(team.teamName) to \(team.qualifyingZone).")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a team.")

        @OptionGroup var store: StoreOptions

        @OptionGroup var teamName: TeamNameArgument

        func run() throws {
            let team = try store.openForChanges().delete(named: teamName.name)
            print("Deleted \(escapedForTerminal(team.teamName)) from \(escapedForTerminal(team.qualifyingZone)).")
        }
    }
}
