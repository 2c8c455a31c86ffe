import ArgumentParser

/// The name of a team a command finds (tap, edit, delete): its words may come unquoted, as a
/// person types them (`worldcup tap ivory coast`), and are joined by one space. Options may
/// stand before, between or after them.
struct TeamNameArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The team's name (case, accents and apostrophes ignored); its words may come unquoted.", valueName: "name"))
    var words: [String]

    /// The name the words spell.
    var name: String { words.joined(separator: " ") }
}
