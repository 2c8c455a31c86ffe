import Foundation
import Glibc
import Testing
import TestSupport

/// A file the person may read but not write: a command that only reads says that
/// `--read-only` opens it, and with it, it does; a command that changes says nothing of it.
/// Root may write any file, so as root the commands run as nobody, from a copy of the binary in
/// the test's folder (the checkout's may sit in a folder only its owner may enter, as CI's does).
@Suite("A database file one may read but not write")
struct ReadableOnlyFileTests {
    /// Runs worldcup as a user who may read `database` but not write it: as root, the copy
    /// `binary` as nobody.
    func asReader(_ arguments: [String], binary: URL) throws -> (status: Int32, out: String, err: String) {
        isRoot
            ? try Executable.run(["-u", "nobody", "--", binary.path] + arguments, executable: URL(fileURLWithPath: "/usr/sbin/runuser"))
            : try Executable.run(arguments)
    }

    @Test("list suggests --read-only, which then lists the board; tap does not suggest it")
    func suggestsReadOnly() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = folder.database.path
        _ = FileManager.default.createFile(atPath: database, contents: nil)
        let made = try Executable.run(["list", "--database", database])
        try #require(made.status == 0, "\(made.err)")
        // The folder stays open to everyone (SQLite's shared-memory file for the reader); the file is not.
        chmod(folder.url.path, 0o777)
        chmod(database, 0o444)
        let binary = folder.file("worldcup")
        if isRoot {
            try FileManager.default.copyItem(at: Executable.worldcup, to: binary)
            chmod(binary.path, 0o755)
        }

        let refused = try asReader(["list", "--database", database], binary: binary)
        #expect(refused.status != 0)
        #expect(refused.err == "Error: Cannot open the database \(database) for reading and writing: permission denied; add --read-only to watch it without changing it.\n")
        let watched = try asReader(["list", "--read-only", "--database", database], binary: binary)
        #expect(watched.status == 0, "\(watched.err)")
        #expect(watched.out.contains("Ghana\tWins: 0"))
        let tap = try asReader(["tap", "Ghana", "--database", database], binary: binary)
        #expect(tap.err == "Error: Cannot open the database \(database) for reading and writing: permission denied.\n")
    }
}
