// swift-tools-version:6.1
import PackageDescription

// LiveResults on PostgreSQL alone: the `LiveResultsPostgres` product, and nothing of SQLite.
// `make test` builds it (`make example`) and checks that neither GRDB nor SQLite is in its
// build folder or its binary. In a package of your own, depend on the repository by URL:
//     .package(url: "https://github.com/you/worldcup.git", branch: "main"),
let package = Package(
    name: "PostgresOnly",
    dependencies: [
        .package(name: "WorldCup", path: "../.."),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .executableTarget(
            name: "postgres-only",
            dependencies: [
                .product(name: "LiveResultsPostgres", package: "WorldCup"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ]
)
