// swift-tools-version:6.1
import PackageDescription

// An example to copy: watch-table prints a table's rows, then each commit's events, as they
// happen. In a package of your own, depend on the repository by URL instead of by path:
//     .package(url: "https://github.com/you/worldcup.git", branch: "main"),
// (the package is named WorldCup, after the scoreboard it also holds).
let package = Package(
    name: "WatchTable",
    dependencies: [
        .package(name: "WorldCup", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "watch-table",
            dependencies: [
                .product(name: "LiveResults", package: "WorldCup"),
                .product(name: "LiveResultsSQLite", package: "WorldCup"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ]
)
