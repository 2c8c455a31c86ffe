/// The options every command takes may come before the command's name, as git, docker and
/// kubectl take theirs (`worldcup --database X list`). swift-argument-parser reads a
/// subcommand's options only after its name, so the arguments are arranged before parsing: the
/// shared options found before a command's name move just after it.
enum OptionOrder {
    /// The options that may come first, and whether each takes a value. Only these move; with
    /// anything else before the command's name (`--help`, a mistyped option) nothing moves,
    /// and the parser answers as it always did.
    static let leading: [String: Bool] = [
        "--database": true, "--seed": true, "--author": true, "--read-only": false,
        // The board's own: `worldcup --theme light board` opens it, another command refuses them by name.
        "--no-color": false, "--flags": true, "--theme": true,
    ]

    /// The commands of a group, whose own options follow their name (`worldcup zone rename`).
    static let nested: [String: Set<String>] = ["zone": ["rename", "move"]]

    /// `arguments` (without the program's name) with the leading shared options after the
    /// command's name, when a command's name follows them; otherwise as they are.
    static func arranged(_ arguments: [String], commands: Set<String>) -> [String] {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if commands.contains(argument) {
                guard index > 0 else { return arguments }
                // A command of a group (`zone rename`): the options go after both names.
                let names = index + 1 < arguments.count && nested[argument]?.contains(arguments[index + 1]) == true ? 2 : 1
                return Array(arguments[index..<(index + names)]) + arguments[..<index] + arguments[(index + names)...]
            }
            let name = String(argument.prefix { $0 != "=" })
            guard let takesValue = leading[name] else { return arguments }
            // `--database=X` carries its value; `--database X` takes the next argument.
            index += takesValue && !argument.contains("=") ? 2 : 1
        }
        return arguments
    }

    /// The word that stands where a command's name would, after the leading shared options,
    /// when it names no command (`worldcup frobnicate`); nil otherwise. The board takes no
    /// words, so without this the parser would answer with the board's usage.
    static func unknownCommand(in arguments: [String], commands: Set<String>) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if commands.contains(argument) { return nil }
            let name = String(argument.prefix { $0 != "=" })
            guard let takesValue = leading[name] else { return argument.hasPrefix("-") ? nil : argument }
            index += takesValue && !argument.contains("=") ? 2 : 1
        }
        return nil
    }
}
