import Foundation
import GRDB
import Glibc
import Synchronization
import Testing
import TestSupport

/// Taps under SIGKILL and under four concurrent writers, through real processes.
@Suite("Crashes and concurrent writers", .serialized)
struct CrashTests {
    /// A team's wins and `PRAGMA integrity_check`, read straight from the file.
    static func inspect(_ database: URL, team: String = "Brazil") throws -> (wins: Int?, integrity: String) {
        let queue = try DatabaseQueue(path: database.path)
        defer { try? queue.close() }
        return try queue.read { db in
            let wins = try Int.fetchOne(db, sql: "SELECT wins FROM team WHERE teamName = ?", arguments: [team])
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
            return (wins, integrity)
        }
    }

    /// The acknowledged win counts in tap-loop's output: its complete lines.
    static func acknowledged(_ output: String) -> [Int] {
        output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { Int($0) }
    }

    @Test("kill -9 in the middle of thousands of taps loses no acknowledged tap and leaves an intact file",
          arguments: [700, 2_000, 4_500])
    func killNine(afterAcknowledged target: Int) throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = folder.database
        let (output, process) = try killTapLoop(on: database, afterAcknowledged: target)
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)

        let acknowledged = Self.acknowledged(output)
        try #require(acknowledged.count >= target, "tap-loop acknowledged only \(acknowledged.count) taps")
        #expect(acknowledged == Array(1...acknowledged.count), "each acknowledged tap is the next win")
        let (wins, integrity) = try Self.inspect(database)
        let last = acknowledged.count
        // The commit in flight at the kill may or may not have landed; no acknowledged one is lost.
        #expect(wins == last || wins == last + 1, "acknowledged \(last), saved \(wins.map(String.init) ?? "none")")
        #expect(integrity == "ok")
        // The file opens normally afterwards and the next tap counts.
        let tap = try Executable.run(["tap", "Brazil", "--database", database.path])
        #expect(tap.status == 0 && tap.err.isEmpty, "\(tap.err)")
        #expect(tap.out == "Brazil: \((wins ?? 0) + 1) wins\n")
    }

    @Test("Four processes tapping one team 2,500 times each add exactly 10,000 wins, and none sees “database is locked”")
    func fourWriters() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = folder.database
        // The four also race to create, migrate and seed the new file.
        let started = ContinuousClock.now
        let writers = try (0..<4).map { _ in try startTapLoop(on: database, taps: 2_500) }
        // 2,500 short lines fit in a pipe's buffer, so the writers never wait for this reader.
        for (process, out, err) in writers {
            let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(errors.isEmpty, "stderr: \(errors)")
            #expect(!errors.lowercased().contains("locked"))
            #expect(Self.acknowledged(output).count == 2_500)
        }
        let elapsed = ContinuousClock.now - started
        let (wins, integrity) = try Self.inspect(database)
        #expect(wins == 10_000)
        #expect(integrity == "ok")
        print("four writers, 10,000 taps: \(elapsed.formatted(.units(allowed: [.seconds, .milliseconds], width: .abbreviated)))")
    }

    @Test("Six `worldcup tap` started at once on a new file, forty times: each creates, migrates or waits, none fails")
    func newFileRace() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        for round in 0..<40 {
            let database = emptyFile(folder.file("race-\(round).sqlite")).path
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                let result = Result { try Executable.run(["tap", "Brazil", "--database", database]) }
                if case .success(let run) = result, run.status == 0, run.err.isEmpty { return }
                failures.withLock { $0.append("\(result)") }
            }
            try #require(failures.withLock { $0 } == [], "round \(round)")
            #expect(try Self.inspect(URL(fileURLWithPath: database)).wins == 6)
        }
    }

    @Test("Four shells running `worldcup tap` 25 times each on a new file: 100 wins, no error")
    func fourCommandLines() throws {
        let folder = try TemporaryFolder(prefix: "DurabilityTests")
        defer { folder.remove() }
        let database = emptyFile(folder.database).path
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<25 {
                do {
                    let result = try Executable.run(["tap", "brazil", "--database", database])
                    if result.status != 0 || !result.err.isEmpty {
                        failures.withLock { $0.append("status \(result.status): \(result.err)") }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try Self.inspect(URL(fileURLWithPath: database)).wins == 100)
    }
}
