import Foundation

/// Runs this same executable again, as a child with one of the hidden subcommands, so that a
/// measurement can happen in a process of its own.
enum ChildProcess {
    /// Starts `worldcup-bench <arguments>` with its standard output (and input, if given) on pipes.
    static func startSelf(_ arguments: [String], output: Pipe, input: Pipe? = nil) throws -> Process {
        let executable: String
        do {
            executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        } catch {
            throw BenchError("Cannot find this program's own executable through /proc/self/exe.")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        if let input { process.standardInput = input }
        do {
            try process.run()
        } catch {
            throw BenchError("Cannot start \(executable) \(arguments.first ?? "").")
        }
        return process
    }
}
