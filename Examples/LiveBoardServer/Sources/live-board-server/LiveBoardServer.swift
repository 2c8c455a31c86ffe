import ArgumentParser
import Foundation
import Hummingbird
import WorldCup
import WorldCupStores

/// live-board-server: the World Cup scoreboard in a browser, live. One results controller
/// follows the database; every browser gets the board, then each change as a batch over
/// Server-Sent Events, which the page applies as a table view does.
@main
struct LiveBoardServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live-board-server",
        abstract: "Serves the World Cup scoreboard to browsers, live, over Server-Sent Events.",
        discussion: """
            Open the address it prints. Every change to the database shows in every browser \
            at once, whichever program made it (worldcup tap Brazil --database <db>, say). \
            Ctrl-C stops it.
            """)

    @Option(help: ArgumentHelp("The scoreboard, as worldcup's --database names it: a SQLite file (created and seeded with the sample's teams when absent; its folder must exist) or a PostgreSQL database as a postgres:// URL, with libpq's forms, PG* variables, ~/.pgpass and sslmodes (set up and seeded on first use; worldcup help tap describes them).", valueName: "path|url"))
    var database: String

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0: any free port; the address printed says which).")
    var port = 8080

    func run() async throws {
        let board: Board
        let shown: String
        do {
            let location = try StoreLocation(database: database)
            shown = location.shown // never the password
            board = try await Board(store: Self.open(location))
        } catch let error as WorldCupError {
            FileHandle.standardError.write(Data("live-board-server: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
        let page = try Self.page()
        // A HEAD request (a link checker's, a monitor's) gets what the GET of its path
        // answers, without the body: the router makes each GET route's HEAD route.
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.get("/") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
        }
        router.get("/events") { _, _ in
            // no-cache: a proxy must not keep the stream; EventSource reconnects by itself.
            Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: board.eventStream())
        }
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "live-board-server"),
            services: [board],
            onServerRunning: { channel in
                let address = channel.localAddress
                print("Serving the board of \(shown) at http://\(address?.ipAddress ?? "?"):\(address?.port ?? 0)/")
                fflush(nil) // a pipe would otherwise hold the line back
            })
        try await app.runService()
    }

    /// Opens the store (a file, or a connection to a server, made and seeded on first use)
    /// on a thread of its own: opening blocks, and must not hold a thread of Swift's
    /// cooperative pool, which the server's tasks share.
    static func open(_ location: StoreLocation) async throws -> any TeamStore {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try location.open(seed: Seed.bundled()) }) }.start()
        }
    }

    /// The page: plain HTML and JavaScript, served as it is.
    static func page() throws -> String {
        guard let url = Bundle.module.url(forResource: "index", withExtension: "html") else {
            throw ValidationError("The page (index.html) is missing from the program's resources: build the package again.")
        }
        return try String(contentsOf: url, encoding: .utf8)
    }
}
