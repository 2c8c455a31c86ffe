// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "WorldCup",
    products: [
        // The core: index, storage, filter, request, events, LiveQuery; no database of its own.
        .library(name: "LiveResults", targets: ["LiveResults"]),
        // LiveResults over SQLite (GRDB): a library of its own, so PostgreSQL-only users never build GRDB.
        .library(name: "LiveResultsSQLite", targets: ["LiveResultsSQLite"]),
        // LiveResults over PostgreSQL: a library of its own, so SQLite-only users never build postgres-nio.
        .library(name: "LiveResultsPostgres", targets: ["LiveResultsPostgres"]),
        .library(name: "TerminalUI", targets: ["TerminalUI"]),
        // The model, for the fuzz targets in Fuzz/ (a package of their own).
        .library(name: "WorldCup", targets: ["WorldCup"]),
        // The scoreboard's SQLite store, for Examples/LiveBoardServer (a package of its own).
        .library(name: "WorldCupSQLite", targets: ["WorldCupSQLite"]),
        // `--database`'s locations (a file or a postgres:// URL) and opening either store, for
        // worldcup and Examples/LiveBoardServer alike.
        .library(name: "WorldCupStores", targets: ["WorldCupStores"]),
        .executable(name: "worldcup", targets: ["worldcup"]),
        .executable(name: "worldcup-bench", targets: ["worldcup-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // postgres-nio's own, which the PostgreSQL modules import too (event loops, futures, locks, loggers).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.3"),
        // What postgres-nio builds its TLS with: the contexts of libpq's sslmodes.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.25.0"),
        // `make docs`: the DocC documentation of LiveResults, LiveResultsSQLite and LiveResultsPostgres.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CNCursesW",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncursesw5-dev"])]
        ),
        // Byte compares with the processor's vector instructions, for the filter's planes.
        .target(name: "CByteScan"),
        .target(
            name: "LiveResults",
            dependencies: ["CByteScan"],
            // Debug builds (and so the tests) check the index's invariants after every change.
            swiftSettings: [.define("LIVERESULTS_INTERNAL_CHECKS", .when(configuration: .debug))]
        ),
        // The SQLite store: key query, change log and tracker, section cache.
        .target(
            name: "LiveResultsSQLite",
            dependencies: [
                "LiveResults",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite C API, to read key columns straight from a statement.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "LiveResultsPostgres",
            dependencies: [
                "LiveResults",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "WorldCup",
            dependencies: ["LiveResults", "LiveResultsSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            // seed.json, the one copy, is built into the module: the program needs no file.
            plugins: ["EmbedSeed"]
        ),
        // The scoreboard in a SQLite file, the embedded default: SQLiteTeamStore, its schema, and
        // the checks of a file before it is opened (header, side files, backups).
        .target(
            name: "WorldCupSQLite",
            dependencies: ["WorldCup", "LiveResults", "LiveResultsSQLite", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .plugin(name: "EmbedSeed", capability: .buildTool(), dependencies: ["embed-seed"]),
        .executableTarget(name: "embed-seed", path: "Plugins/EmbedSeedTool"),
        // The scoreboard on a PostgreSQL server shared by many machines: PostgresTeamStore, the
        // schema (shared with the benchmark) and postgres:// locations.
        .target(
            name: "WorldCupPostgres",
            dependencies: [
                "WorldCup", "LiveResults", "LiveResultsPostgres", "PostgresURLs",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Where `--database` points (a file, or a postgres:// URL) and the store it opens.
        .target(name: "WorldCupStores", dependencies: ["WorldCup", "WorldCupSQLite", "WorldCupPostgres"]),
        .target(
            name: "TerminalUI",
            dependencies: ["CNCursesW"]
        ),
        .target(
            name: "WorldCupApp",
            dependencies: ["LiveResults", "WorldCup", "TerminalUI"]
        ),
        .executableTarget(
            name: "worldcup",
            dependencies: [
                "LiveResults", "TerminalUI", "WorldCup", "WorldCupApp", "WorldCupPostgres", "WorldCupSQLite", "WorldCupStores",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // postgres:// URLs and libpq's settings (service file, PG* environment, password file,
        // sslmode, target_session_attrs), passwords masked; for the app and the throwaway server
        // alike, so no GRDB and no WorldCup: what goes wrong is an enum the app words.
        .target(
            name: "PostgresURLs",
            dependencies: [.product(name: "PostgresNIO", package: "postgres-nio")]
        ),
        // A throwaway PostgreSQL cluster in a temporary folder: for the tests' server
        // (PostgresSupport) and `worldcup-bench --store postgres`.
        .target(
            name: "ThrowawayPostgres",
            dependencies: ["PostgresURLs", "SpawnActions", .product(name: "PostgresNIO", package: "postgres-nio")]
        ),
        // glibc's posix_spawn_file_actions_addclosefrom_np, for children that must inherit
        // nothing but their standard descriptors.
        .target(name: "SpawnActions"),
        // epoll, which Glibc's module does not bring: the SSE benchmark reads 10,000 streams on one thread.
        .target(name: "CEpoll"),
        // SplitMix64, the seeded generator of the benchmark's boards and of the tests' cases.
        .target(name: "SeededRandom"),
        // The benchmarks: a library (tested) and a thin executable.
        .target(
            name: "WorldCupBench",
            dependencies: [
                "CEpoll", "LiveResults", "LiveResultsPostgres", "LiveResultsSQLite", "SeededRandom", "SpawnActions", "ThrowawayPostgres", "WorldCup", "WorldCupApp", "WorldCupPostgres", "WorldCupSQLite", "WorldCupStores",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "worldcup-bench", dependencies: ["WorldCupBench"]),
        // worldcup-bench: the fan-out test runs it as its viewer processes, on the PostgreSQL test server.
        .testTarget(name: "WorldCupBenchTests", dependencies: ["WorldCupBench", "ThrowawayPostgres", "WorldCupPostgres", "WorldCupSQLite", "worldcup-bench", "tcp-relay", "PostgresSupport", "TestSupport"]),
        // The controller's tests, on SQLite and (the same checks) on a PostgreSQL test server.
        .testTarget(
            name: "LiveResultsTests",
            dependencies: [
                "LiveResults", "LiveResultsPostgres", "LiveResultsSQLite", "TestSupport", "PostgresSupport", "ThrowawayPostgres", "tcp-relay",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(name: "WorldCupSQLiteTests", dependencies: ["WorldCupSQLite", "WorldCup", "LiveResults", "LiveResultsSQLite", "TestSupport", "TeamStoreContract", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "TestSupport"]),
        // GRDB: another connection holding the board's file locked while its writes wait.
        .testTarget(name: "WorldCupAppTests", dependencies: ["WorldCupApp", "WorldCup", "WorldCupSQLite", "LiveResults", "LiveResultsSQLite", "TerminalUI", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // The undo, edit and history rules, checked the same way on both stores.
        .target(name: "TeamStoreContract", dependencies: ["WorldCup"], path: "Tests/TeamStoreContract"),
        // What the tests share: temporary folders, the repository's files, the seeded generator,
        // grid assertions, running the built executables.
        .target(name: "TestSupport", dependencies: ["TerminalUI", "SeededRandom"], path: "Tests/TestSupport"),
        // A throwaway PostgreSQL server (or PG_TEST_URL) for the tests of LiveResultsPostgres.
        .target(
            name: "PostgresSupport",
            dependencies: ["ThrowawayPostgres", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Tests/PostgresSupport"
        ),
        .testTarget(
            name: "LiveResultsPostgresTests",
            dependencies: [
                "LiveResultsPostgres", "LiveResults", "PostgresSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // PostgresTeamStore on a real server (PostgresSupport's), and the built worldcup on it.
        .testTarget(
            name: "WorldCupPostgresTests",
            dependencies: [
                "WorldCupPostgres", "WorldCup", "WorldCupSQLite", "LiveResultsPostgres", "PostgresURLs", "ThrowawayPostgres", "PostgresSupport", "TestSupport", "TeamStoreContract", "worldcup", "tap-loop",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // GRDB: to damage a file under a running scoreboard.
        // ThrowawayPostgres and tcp-relay: boards sharing a server, its restarts and network cuts.
        .testTarget(name: "EndToEndTests", dependencies: ["worldcup", "tcp-relay", "SpawnActions", "TestSupport", "ThrowawayPostgres", "PostgresSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        // kill -9, concurrent writers and bad input, through the built binaries.
        .executableTarget(name: "tap-loop", dependencies: ["WorldCup", "WorldCupPostgres", "WorldCupSQLite"], path: "Tests/Helpers/TapLoop"),
        // A TCP relay the shared-board tests freeze (SIGSTOP) and kill, to cut the network.
        .executableTarget(name: "tcp-relay", path: "Tests/Helpers/TCPRelay"),
        // Examples/LiveBoardServer's binary (`make example`) in headless Chromium, with worldcup
        // and the store changing the board from outside, on a file and on the PostgreSQL test server.
        .testTarget(name: "LiveBoardServerTests", dependencies: ["worldcup", "WorldCup", "WorldCupSQLite", "TestSupport", "PostgresSupport"]),
        .testTarget(
            name: "DurabilityTests",
            dependencies: ["worldcup", "tap-loop", "WorldCup", "WorldCupSQLite", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]
        ),
    ]
)
