import Foundation
import TestSupport

// The built `worldcup` on a SQLite file or a postgres:// URL, as the command-line suites of
// both stores run it.

/// Runs `worldcup` on `database` with WORLDCUP_AUTHOR set to `author`.
func worldcup(_ arguments: [String], on database: String, author: String = "fan@laptop") throws -> (status: Int32, out: String, err: String) {
    try Executable.run(["WORLDCUP_AUTHOR=\(author)", Executable.worldcup.path] + arguments + ["--database", database],
                       executable: URL(fileURLWithPath: "/usr/bin/env"))
}

/// The sentence of a failed run: one sentence on stderr, nothing on stdout, exit status 1;
/// nil for any other outcome.
func refused(_ result: (status: Int32, out: String, err: String)) -> String? {
    guard result.status == 1, result.out.isEmpty, result.err.hasPrefix("Error: "), result.err.hasSuffix(".\n"),
          result.err.dropLast().split(separator: "\n").count == 1 else { return nil }
    return String(result.err.dropFirst("Error: ".count).dropLast())
}

/// The path of a new SQLite board in `folder`, an empty file there: every command makes a new
/// board of an empty file (only the board makes one that does not exist).
func newBoardFile(in folder: TemporaryFolder) -> String {
    _ = FileManager.default.createFile(atPath: folder.database.path, contents: nil)
    return folder.database.path
}
