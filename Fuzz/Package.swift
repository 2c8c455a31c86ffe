// swift-tools-version:6.1
// libFuzzer targets for the seed loader and the name rules: `make fuzz` from the package root.
// A package of its own, because these link only with libFuzzer (`-sanitize=fuzzer`),
// which the main package's `swift build` and `swift test` never pass.
import Foundation
import PackageDescription

// A package dependency given by path is known by its folder's name, whatever the clone is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "WorldCupFuzz",
    dependencies: [.package(path: root.path)],
    targets: [.target(name: "CFuzzer")] + ["fuzz-seed", "fuzz-names"].map { name in
        .executableTarget(name: name, dependencies: ["CFuzzer", .product(name: "WorldCup", package: root.lastPathComponent)])
    }
)
