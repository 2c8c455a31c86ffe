import ArgumentParser
import Foundation
import WorldCup
import WorldCupSQLite

extension TeamExport.Format: EnumerableFlag {
    public static func help(for value: TeamExport.Format) -> ArgumentHelp? {
        switch value {
        case .csv: "CSV: a header line (teamName,qualifyingZone,imageName,wins), then one line per team, quoted as RFC 4180 says."
        case .json: "JSON, as list --json prints it: an array of teams, keys sorted (a file --seed reads)."
        }
    }
}

extension WorldCupCommand {
    /// `worldcup export`: every team, in scoreboard order, as CSV or JSON, to a new file or
    /// standard output.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write every team, in scoreboard order, as CSV or JSON.",
            discussion: """
                The teams are read in one statement, so the export is the board at one moment, \
                even while others tap. Without FILE, the export goes to standard output (where \
                a terminal shows it, text it would obey comes out escaped). A FILE is written \
                whole or not at all: under a temporary name beside it, flushed to disk, then \
                put in place. An existing FILE is refused unless --force is given; with it, \
                the old file is replaced at once by the complete new one.
                """)

        @OptionGroup var store: StoreOptions

        @Flag var format: TeamExport.Format = .csv

        @Flag(name: .long, help: "Replace FILE if it exists.")
        var force = false

        @Argument(help: ArgumentHelp("The file to write (default: standard output).", valueName: "file"))
        var file: String?

        func run() throws {
            guard let file else {
                let text = String(decoding: try TeamExport.data(store.open(reading: true).teams(), as: format), as: UTF8.self)
                FileHandle.standardOutput.write(Data((isatty(STDOUT_FILENO) == 1 ? Self.escapedLines(text) : text).utf8))
                return
            }
            var count = 0
            // The file's place is checked before the board is opened.
            try NewFile.write(to: URL(fileURLWithPath: file), what: "the export", replacing: force,
                              advice: "give the name of a new file, or --force to replace it") {
                let teams = try store.open(reading: true).teams()
                count = teams.count
                return try TeamExport.data(teams, as: format)
            }
            print("Exported \(count == 1 ? "1 team" : "\(count) teams") to \(WorldCupError.quotable(file)).")
        }

        /// The text with each line escaped for a terminal, its line ends kept.
        static func escapedLines(_ text: String) -> String {
            text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in escapedForTerminal(String(line.hasSuffix("\r") ? line.dropLast() : line)) }
                .joined(separator: "\n")
        }
    }
}
