import CFuzzer
import Foundation
import WorldCup

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
    guard let bytes else { return 0 }
    return fuzzNames(bytes, count)
})

/// One libFuzzer input: any bytes as a team name typed or pasted. What the rules accept is
/// short, trimmed and free of anything a terminal would obey; what they refuse gets one line;
/// and the way errors quote a name never lets a control character through.
func fuzzNames(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let shown = WorldCupError.quotable(text)
    precondition(!shown.unicodeScalars.contains(where: obeyed), "quotable() let a control through")
    // At most 80 scalars are kept, and an escape such as \u{10FFFF} takes 10.
    precondition(shown.unicodeScalars.count <= 80 * 10 + 1, "quotable() is too long")
    do {
        try TeamValidation.checkName(text)
        let name = TeamValidation.trimmed(text)
        precondition(!name.isEmpty && name.count <= TeamValidation.maximumLength, "bad length accepted")
        precondition(!name.unicodeScalars.contains(where: obeyed), "a control character was accepted")
        precondition(!name.unicodeScalars.contains("\u{FFFD}"), "invalid UTF-8 was accepted")
        precondition(WorldCupError.quotable(name, limit: .max) == name, "an accepted name is changed when shown")
    } catch let error as WorldCupError {
        precondition(!error.description.contains("\n") && error.description.hasSuffix("."), "not one line: \(error)")
    } catch {
        preconditionFailure("not a WorldCupError: \(error)")
    }
    return 0
}

/// What a terminal acts on instead of showing: controls, line and paragraph separators, bidi controls.
private func obeyed(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator: true
    default: (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
