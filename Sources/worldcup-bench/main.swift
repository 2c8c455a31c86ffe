import WorldCupBench

// `worldcup-bench`: the benchmarks live in the WorldCupBench library, where their pure parts
// are tested; this executable only starts the command. `fanout`, `sse` and `link` parse their own arguments (the
// root command's options of the same names would take them).
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == FanoutCommand.configuration.commandName {
    FanoutCommand.main(Array(arguments.dropFirst()))
} else if arguments.first == SSECommand.configuration.commandName {
    SSECommand.main(Array(arguments.dropFirst()))
} else if arguments.first == LinkCommand.configuration.commandName {
    LinkCommand.main(Array(arguments.dropFirst()))
} else {
    BenchCommand.main()
}
