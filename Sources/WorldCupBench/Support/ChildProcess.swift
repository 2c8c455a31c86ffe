import ArgumentParser
import Foundation

/// Runs this same executable again, as a child with one of the hidden subcommands, so that a
/// measurement can happen in a process of its own.
enum ChildProcess {
    /// Starts `worldcup-bench <arguments>` with its standard output (and input, if given) on
    /// pipes: this executable, or `executable` (a built `worldcup-bench`, for the tests, whose
    /// own executable is the test runner).
    static func startSelf(_ arguments: [String], output: Pipe, input: Pipe? = nil, executable: URL? = nil) throws -> Process {
        let path: String
        if let executable {
            path = executable.path
        } else {
            do {
                path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            } catch {
                throw BenchError("Cannot find this program's own executable through /proc/self/exe.")
            }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = output
        if let input { process.standardInput = input }
        do {
            try process.run()
        } catch {
            throw BenchError("Cannot start \(path) \(arguments.first ?? "").")
        }
        return process
    }
}

extension CommandConfiguration {
    /// A subcommand that `ChildProcess` runs as a measurement's other process: hidden from
    /// the help, which is for people.
    static func childProcess(_ commandName: String, abstract: String) -> CommandConfiguration {
        CommandConfiguration(commandName: commandName, abstract: abstract, shouldDisplay: false)
    }
}
