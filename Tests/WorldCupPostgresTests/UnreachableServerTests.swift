import Foundation
import Glibc
import Testing
import WorldCup
import WorldCupPostgres

/// A socket on 127.0.0.1 that takes each connection and closes it at once, before any
/// PostgreSQL answer: what a firewall or a proxy in front of an unreachable host does.
final class ClosingListener: @unchecked Sendable { // The thread and `close` share only the descriptor.
    let port: Int
    private let descriptor: Int32

    init() throws {
        let listener = try SilentListener()
        port = listener.port
        descriptor = listener.descriptorForClosing
        Thread.detachNewThread { [descriptor] in
            while true {
                let connection = accept(descriptor, nil, nil)
                if connection < 0 { return }
                Glibc.close(connection)
            }
        }
    }

    func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
    }
}

@Suite("PostgresTeamStore: a server that cannot be reached")
struct UnreachableServerTests {
    @Test("A connection closed before the server answered says the server could not be reached, not that a connection was lost")
    func closedBeforeAnyAnswer() throws {
        let listener = try ClosingListener()
        defer { listener.close() }
        let location = try PostgresLocation(url: "postgres://app:secret@127.0.0.1:\(listener.port)/cup", environment: [:])
        let error = try #require(throws: WorldCupError.self) {
            try PostgresTeamStore(location: location, seed: Seed.bundled(), deadline: .seconds(2))
        }
        #expect(error.description.hasPrefix("The PostgreSQL server at 127.0.0.1:\(listener.port) could not be reached"), "\(error)")
        #expect(!error.description.contains("was lost"))
    }
}
