// swift-tools-version:6.1
import PackageDescription

// An example to copy: live-board-server serves the World Cup scoreboard to browsers over
// Server-Sent Events, one live query shared by all of them. In a package of your own, depend
// on the repository by URL instead of by path:
//     .package(url: "https://github.com/you/worldcup.git", branch: "main"),
// (the package is named WorldCup, after the scoreboard it also holds).
let package = Package(
    name: "LiveBoardServer",
    dependencies: [
        .package(name: "WorldCup", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Hummingbird's own: the board runs as a service beside the server, and stops with it.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "live-board-server",
            dependencies: [
                .product(name: "LiveResults", package: "WorldCup"),
                .product(name: "WorldCup", package: "WorldCup"),
                // `--database`: a SQLite file or a postgres:// URL, as worldcup reads it.
                .product(name: "WorldCupStores", package: "WorldCup"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The page, served as it is: plain JavaScript, no build step.
            resources: [.copy("index.html")]
        ),
    ]
)
