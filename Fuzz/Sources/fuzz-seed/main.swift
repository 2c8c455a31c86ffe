import CFuzzer
import Foundation
import WorldCup

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
    guard let bytes else { return 0 }
    return fuzzSeed(bytes, count)
})

/// One libFuzzer input: any bytes as a seed file. The loader must never crash or hang; it
/// returns teams that obey every rule the database relies on, or throws one sentence.
func fuzzSeed(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    do {
        let teams = try Seed.decode(data, source: "fuzz.json")
        precondition(!teams.isEmpty, "an empty seed was accepted")
        var keys = Set<String>()
        for team in teams {
            try TeamValidation.checkName(team.teamName)
            try TeamValidation.checkZone(team.qualifyingZone)
            precondition((0...Seed.maximumWins).contains(team.wins), "wins out of range were accepted")
            precondition(keys.insert(Team.nameKey(TeamValidation.trimmed(team.teamName))).inserted, "a duplicate name was accepted")
        }
    } catch let error as WorldCupError {
        precondition(!error.description.contains("\n") && error.description.hasSuffix("."), "not one line: \(error)")
    } catch {
        preconditionFailure("not a WorldCupError: \(error)")
    }
    return 0
}
