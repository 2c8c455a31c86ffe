import Foundation
import Testing
import TestSupport

/// Where `--database` points, through the real binary: a mistyped URL or a path whose folder
/// does not exist is refused in one sentence, and nothing is made; only the default data
/// folder is made.
@Suite("Database locations through the binary")
struct DatabaseLocationTests {
    /// Runs the built worldcup in `folder` with `environment` added to this process's.
    private func worldcup(_ arguments: [String], in folder: TemporaryFolder, environment: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        try Executable.run(environment.map { "\($0)=\($1)" } + [Executable.worldcup.path] + arguments,
                           executable: URL(fileURLWithPath: "/usr/bin/env"), workingDirectory: folder.url)
    }

    @Test("A URL of another scheme is refused, and no folder or file is made", arguments: [
        "postgress://postgres@127.0.0.1:5581/worldcup", "postgresq://app:hunter2@db/cup", "mysql://db/cup",
        "postgres:/db/cup", "HTTP://example.com/board", "file:///tmp/WorldCup.sqlite",
    ])
    func foreignURL(_ url: String) throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        for command in [["list"], ["tap", "Brazil"], ["add", "Atlantis", "--zone", "Oceania"], ["check"], ["reset", "--yes"]] {
            for (arguments, environment) in [(command + ["--database", url], [:]), (command, ["WORLDCUP_DATABASE": url])] {
                let result = try worldcup(arguments, in: folder, environment: environment)
                expectError(result, mentions: ["did you mean postgres://?"], "\(url), \(command[0])")
                #expect(!result.err.contains("hunter2"))
                #expect(folder.snapshot().isEmpty, "\(url), \(command[0]): files made")
            }
        }
    }

    @Test("A path whose folder does not exist is refused with the mkdir that makes it, and nothing is made")
    func missingFolder() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        for command in [["list"], ["tap", "Brazil"], ["add", "Atlantis", "--zone", "Oceania"], ["reset", "--yes"]] {
            let result = try worldcup(command + ["--database", "boards/it's mine/WorldCup.sqlite"], in: folder)
            expectError(result, mentions: ["does not exist", #"mkdir -p '\#(folder.url.path)/boards/it'\''s mine'"#], command[0])
            #expect(folder.snapshot().isEmpty, "\(command[0]): files made")
        }
        // Made as the sentence says, the folder takes the board (an empty file: only the board
        // makes one that does not exist).
        try FileManager.default.createDirectory(at: folder.file("boards/it's mine"), withIntermediateDirectories: true)
        emptyFile(folder.file("boards/it's mine/WorldCup.sqlite"))
        #expect(try worldcup(["list", "--database", "boards/it's mine/WorldCup.sqlite"], in: folder).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.file("boards/it's mine/WorldCup.sqlite").path))
    }

    @Test("The default data folder, and only it, is made")
    func defaultFolderIsMade() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let data = folder.file("xdg/data")
        let result = try worldcup(["list"], in: folder, environment: ["XDG_DATA_HOME": data.path, "WORLDCUP_DATABASE": ""])
        #expect(result.status == 0, "\(result.err)")
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("worldcup/WorldCup.sqlite").path))
    }
}
