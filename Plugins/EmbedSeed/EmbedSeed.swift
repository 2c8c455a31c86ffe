import Foundation
import PackagePlugin

/// Builds the package's `seed.json` into the target it is applied to, as Swift source, so the
/// program carries its seed wherever it is installed and `seed.json` stays the one copy.
///
/// The generated file extends `Seed` with `embeddedJSON`, the file's exact text; it is made
/// again whenever `seed.json` changes.
@main
struct EmbedSeed: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let seed = context.package.directoryURL.appending(path: "seed.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSeed.swift")
        return [
            .buildCommand(
                displayName: "Embedding seed.json in \(target.name)",
                executable: try context.tool(named: "embed-seed").url,
                arguments: [seed.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: [seed],
                outputFiles: [output]
            ),
        ]
    }
}
