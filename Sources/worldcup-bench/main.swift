import WorldCupBench

// `worldcup-bench`: the benchmarks live in the WorldCupBench library, where their pure parts
// are tested; this executable only starts the command.
BenchCommand.main()
