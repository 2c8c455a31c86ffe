import Foundation
import Testing
import TestSupport

/// Names and zones as people read them, through the binary: `list` sorts names with case and
/// accents folded, and `add --zone` in another case joins the existing zone.
@Suite("Names and zones as people read them, on the command line")
struct ReadingOrderTests {
    @Test("list: alpha, Åland, Émoji and Switzerland in reading order; add --zone africa joins Africa")
    func listAndAdd() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = emptyFile(folder.database).path
        // Switzerland, of the seed, moves to the new zone with the others.
        #expect(try Executable.run(["delete", "Switzerland", "--database", database]).status == 0)
        for name in ["Switzerland", "Émoji", "alpha", "Åland"] {
            #expect(try Executable.run(["add", name, "--zone", "Zed", "--database", database]).status == 0)
        }
        let egypt = try Executable.run(["add", "Egypt", "--zone", "africa", "--database", database])
        #expect(egypt.out == "Added Egypt to Africa.\n", "\(egypt.err)")
        #expect(try Executable.run(["add", "Fiji", "--zone", "ZED", "--database", database]).out == "Added Fiji to Zed.\n")
        let list = try Executable.run(["list", "--database", database]).out.split(separator: "\n").map(String.init)
        let zed = try #require(list.firstIndex(of: "Zed"))
        #expect(list[(zed + 1)...].map { $0.split(separator: "\t")[0] } == ["  Åland", "  alpha", "  Émoji", "  Fiji", "  Switzerland"])
        #expect(list.filter { $0.lowercased() == "africa" } == ["Africa"], "one Africa section")
        #expect(list.contains("  Egypt\tWins: 0"))
    }
}
