// embed-seed SEED.json OUTPUT.swift: writes Swift source that holds the seed's exact text.
// Run by the EmbedSeed build-tool plugin; not installed.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: embed-seed SEED.json OUTPUT.swift\n".utf8))
    exit(2)
}

/// The text as a one-line Swift string literal: every scalar outside printable ASCII, and the
/// quote and backslash, escaped as \u{...}, so the literal holds exactly the file's scalars.
func swiftLiteral(_ text: String) -> String {
    var literal = "\""
    for scalar in text.unicodeScalars {
        if scalar.value >= 0x20, scalar.value < 0x7F, scalar != "\"", scalar != "\\" {
            literal.unicodeScalars.append(scalar)
        } else {
            literal += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }
    }
    return literal + "\""
}

let seedPath = arguments[1], outputPath = arguments[2]
guard let data = FileManager.default.contents(atPath: seedPath) else {
    FileHandle.standardError.write(Data("error: cannot read \(seedPath).\n".utf8))
    exit(1)
}
guard let text = String(validating: data, as: UTF8.self) else {
    FileHandle.standardError.write(Data("error: \(seedPath) is not valid UTF-8.\n".utf8))
    exit(1)
}
let source = """
    // Generated at build time by the EmbedSeed plugin from the package's seed.json: do not edit.

    extension Seed {
        /// The text of the package's seed.json when the program was built.
        static let embeddedJSON = \(swiftLiteral(text))
    }

    """
do {
    // Rewritten only when it changes, so an unchanged seed recompiles nothing.
    if FileManager.default.contents(atPath: outputPath) != Data(source.utf8) {
        try Data(source.utf8).write(to: URL(fileURLWithPath: outputPath), options: .atomic)
    }
} catch {
    FileHandle.standardError.write(Data("error: cannot write \(outputPath): \(error.localizedDescription)\n".utf8))
    exit(1)
}
