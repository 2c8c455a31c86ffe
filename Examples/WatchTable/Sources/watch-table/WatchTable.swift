import ArgumentParser
import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite

/// watch-table: the rows of one table of an SQLite file, sorted and sectioned, then the events
/// of every commit that changes them, from this process or any other, until Ctrl-C.
@main
struct WatchTable: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch-table",
        abstract: "Prints a table's rows, sorted and sectioned, then each commit's events as it happens.",
        discussion: """
            Installs LiveResults' change log on the table the first time (triggers that record \
            every commit, so that other processes' changes show; with --join, on the related \
            table too). Event lines: section insert <index> "<name>", section delete <index> \
            "<name>", section move <index> -> <index> "<name>", section update <index> -> <index> \
            "<name>", insert <id> -> [s,r], delete <id> [s,r], move <id> [s,r] -> [s,r], update \
            <id> [s,r] -> [s,r], reset. Ctrl-C stops it.
            """)

    @Argument(help: ArgumentHelp("The SQLite file (it must exist).", valueName: "db"))
    var database: String

    @Argument(help: ArgumentHelp("The table to watch (it needs an integer primary key or a rowid).", valueName: "table"))
    var table: String

    @Option(help: ArgumentHelp("The column whose value splits the rows into sections (sorted by it first).", valueName: "column"))
    var section: String?

    @Option(help: ArgumentHelp("Sections through a related table instead: each row's section is the row of TABLE whose id its FOREIGN_KEY holds, titled by TITLE (a rename is a section update, a reorder a section move).", valueName: "table:foreign_key:title"))
    var join: JoinTerm?

    @Option(name: .customLong("section-sort"), help: ArgumentHelp("With --join, a column of the related table ordering the sections, ascending unless followed by :desc; repeat it to break ties (its id breaks the last).", valueName: "column[:desc]"))
    var sectionSorts: [SortTerm] = []

    @Option(name: .customLong("sort"), help: ArgumentHelp("A column to sort by, ascending unless followed by :desc; repeat it to break ties.", valueName: "column[:desc]"))
    var sorts: [SortTerm] = []

    func validate() throws {
        if sorts.isEmpty { throw ValidationError("Give at least one --sort COLUMN (or COLUMN:desc).") }
        if join != nil, section != nil { throw ValidationError("--section and --join exclude each other: a joined table's rows are its sections.") }
        if join == nil, !sectionSorts.isEmpty { throw ValidationError("--section-sort orders the sections of --join: give --join too.") }
    }

    func run() async throws {
        let watch = Task { @MainActor [self] in try await watchUntilCancelled() }
        // Ctrl-C cancels the watching task: its loop ends, and the program with it.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
        interrupt.setEventHandler { watch.cancel() }
        interrupt.resume()
        defer { interrupt.cancel() }
        do {
            try await watch.value
        } catch let failure as Failure {
            FileHandle.standardError.write(Data("watch-table: \(failure.sentence)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// Opens the file, installs the change log if needed, prints the result and then every batch.
    @MainActor func watchUntilCancelled() async throws {
        let queue = try openDatabase()
        WatchedRow.tableName = table
        let sortColumns = sortColumns()
        let request = ResultsRequest<WatchedRow>(sortDescriptors: sortColumns)
        let controller = if let join {
            ResultsController(database: queue, fetchRequest: request, sections: RelatedSections(
                table: join.table, foreignKey: join.foreignKey, title: join.title,
                order: sectionSorts.map { SortColumn($0.column, ascending: $0.ascending) }))
        } else {
            ResultsController(database: queue, fetchRequest: request, sectionNameKeyPath: section)
        }
        let changes = controller.changes() // before the fetch: the fetch starts tracking
        do {
            try controller.performFetch()
            try printResult(of: controller, columns: sortColumns.map(\.column))
        } catch let error as LiveResultsError {
            throw Failure(sentence: error.description)
        }
        status("Watching “\(table)” in \(database): \(controller.numberOfObjects) rows in \(controller.numberOfSections) sections. Ctrl-C stops.")
        do {
            for try await change in changes {
                for line in EventLines.lines(for: change) { print(line) }
                fflush(nil) // a pipe would otherwise hold the lines back
            }
        } catch let error as LiveResultsError {
            throw Failure(sentence: error.description)
        }
    }

    /// The sort: the section column first, when it is not the first already.
    func sortColumns() -> [SortColumn] {
        let columns = sorts.map { SortColumn($0.column, ascending: $0.ascending) }
        guard let section, columns.first?.column != section else { return columns }
        return [SortColumn(section)] + columns
    }

    /// The database, with the change log on the table (installed now, and said so, the first time).
    func openDatabase() throws -> DatabaseQueue {
        guard FileManager.default.fileExists(atPath: database) else {
            throw Failure(sentence: "There is no file at \(database): give the path of an existing SQLite database.")
        }
        // A queue, not a pool: a pool would switch the file to WAL mode for good. Other
        // processes write to the file: wait for their locks instead of failing at once.
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: database, configuration: configuration)
            let tables = try queue.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'liveresults_%' ORDER BY name") }
            guard tables.contains(table) else {
                let known = tables.isEmpty ? "it has none" : "it has " + tables.map { "“\($0)”" }.joined(separator: ", ")
                throw Failure(sentence: "There is no table “\(table)” in \(database) (\(known)).")
            }
            // Before anything is installed: a typo must leave the file as it was.
            let columns = try queue.read { db in try db.columns(in: table).map(\.name) }
            for column in sortColumns().map(\.column) + (join.map { [$0.foreignKey] } ?? [])
            where !columns.contains(where: { $0.lowercased() == column.lowercased() }) {
                throw Failure(sentence: "There is no column “\(column)” in “\(table)” (it has \(columns.map { "“\($0)”" }.joined(separator: ", "))).")
            }
            if let join {
                guard tables.contains(join.table) else { throw Failure(sentence: "There is no table “\(join.table)” in \(database) to join.") }
                let related = try queue.read { db in try db.columns(in: join.table).map(\.name) }
                for column in ["id", join.title] + sectionSorts.map(\.column) where !related.contains(where: { $0.lowercased() == column.lowercased() }) {
                    throw Failure(sentence: "There is no column “\(column)” in “\(join.table)” (it has \(related.map { "“\($0)”" }.joined(separator: ", "))).")
                }
            }
        } catch let error as DatabaseError {
            throw Failure(sentence: "\(database) could not be read as an SQLite database: \(error.message ?? "\(error.resultCode)").")
        }
        // The related table's commits rename and reorder sections: it is followed too.
        for table in [table] + (join.map { [$0.table] } ?? []) {
            do {
                let installed = try queue.write { db in
                    if try ChangeLog.isInstalled(on: table, in: db) { return false }
                    try ChangeLog.install(on: table, in: db)
                    return true
                }
                if installed {
                    status("Installed LiveResults' change log on “\(table)”: triggers that record every commit, so that other processes' changes show.")
                }
            } catch let error as DatabaseError {
                throw Failure(sentence: "The change log could not be installed on “\(table)” (\(error.message ?? "\(error.resultCode)")): watch-table must write to \(database) once.")
            }
        }
        return queue
    }

    /// Prints every section and row of the result, with the values of the sort columns.
    @MainActor func printResult(of controller: ResultsController<WatchedRow>, columns: [String]) throws {
        for (s, info) in controller.sections.enumerated() {
            print("section \(s) \(EventLines.quoted(info.name)) (\(info.numberOfObjects) row\(info.numberOfObjects == 1 ? "" : "s"))")
            for r in 0..<info.numberOfObjects {
                let path = IndexPath(row: r, section: s)
                let row = try controller.object(at: path).row
                let values = columns.map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ")
                print("  \(EventLines.place(path)) \(controller.id(at: path)) \(values)")
            }
        }
        fflush(nil)
    }

    /// A line for the person watching, on standard error (standard output holds the events).
    func status(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// A failure told in one sentence.
struct Failure: Error {
    var sentence: String
}
