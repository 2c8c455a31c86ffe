import Foundation
import PostgresNIO
import PostgresSupport

let logger = TestServer.logger

/// Runs `body` with a fresh database of the test server and drops it afterwards; the
/// connections `body` opens through `connect` are closed.
func withDatabase<T>(_ body: (_ connect: () async throws -> PostgresConnection) async throws -> T) async throws -> T {
    let (configuration, drop) = try await TestServer.freshDatabase()
    let opened = Opened()
    do {
        let result = try await body {
            let connection = try await TestServer.connect(configuration)
            opened.connections.append(connection)
            return connection
        }
        for connection in opened.connections { try? await connection.close() }
        await drop()
        return result
    } catch {
        for connection in opened.connections { try? await connection.close() }
        await drop()
        throw error
    }
}

private final class Opened: @unchecked Sendable { // Used by one test's task only.
    var connections: [PostgresConnection] = []
}

extension PostgresConnection {
    /// Runs statements one after another.
    func run(_ statements: String...) async throws {
        for statement in statements { try await query(PostgresQuery(unsafeSQL: statement), logger: logger) }
    }

    /// The rows of a query, one column decoded as `T`.
    func column<T: PostgresDecodable & Sendable>(_ sql: String, as type: T.Type = T.self) async throws -> [T] {
        var values: [T] = []
        for try await value in try await query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(T.self) { values.append(value) }
        return values
    }
}

/// Polls `body` until it returns a value or `seconds` pass (then nil).
func eventually<T>(seconds: Double = 10, _ body: () async throws -> T?) async throws -> T? {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
        if let value = try await body() { return value }
        try await Task.sleep(for: .milliseconds(20))
    } while Date() < deadline
    return nil
}
