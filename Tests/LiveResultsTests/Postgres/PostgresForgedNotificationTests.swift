import Foundation
@testable import LiveResults
@testable import LiveResultsPostgres
import PostgresNIO
import PostgresSupport
import Testing

/// A spectator's attacks on the notifications: PostgreSQL lets any role that may connect NOTIFY
/// any channel with any text. A role granted SELECT only (the README's watcher) sends payloads
/// in the log's own layout; none is applied, every controller stays equal to the table, and a
/// flood costs each listener a bounded number of reads.
@Suite(.serialized) struct PostgresForgedNotificationTests {
    /// A fresh `item` database with a controller that listens, a role that may only read, and a
    /// connection of that role.
    struct Attack {
        let database: PostgresItems
        let ids: [Int64]
        let controller: ResultsController<Item>
        let feed: PostgresChangeFeed
        let watcher: PostgresConnection
        /// How to connect as the watcher again (a new backend each time), and its role.
        let watcherConfiguration: PostgresConnection.Configuration
        let watcherRole: String
        let recorder: Recorder

        /// Sends `payload` on the table's channel as the watcher.
        func forge(_ payload: String, channel: String = "liveresults_item") async throws {
            try await watcher.query("SELECT pg_notify(\(channel), \(payload))", logger: TestServer.logger)
        }

        /// The next notification a real commit of the owner's sends, as a listener of the
        /// channel hears it (text only).
        func realNotification(of statement: String) async throws -> String {
            let listener = try await TestServer.connect(database.configuration)
            defer { Task { try? await listener.close() } }
            let heard = NIOLockedValueBoxText()
            let context = listener.addListener(channel: "liveresults_item") { _, notification in heard.set(notification.payload) }
            try await listener.query("LISTEN liveresults_item", logger: TestServer.logger)
            try await database.run(statement)
            let deadline = ContinuousClock.now + .seconds(10)
            while heard.get() == nil, ContinuousClock.now < deadline {
                try await listener.query("SELECT 1", logger: TestServer.logger)
                try await Task.sleep(for: .milliseconds(10))
            }
            context.stop()
            return try #require(heard.get())
        }

        /// Whether the controller shows the table as it is, after giving it `seconds` to
        /// take what it heard.
        func showsTheTable(after seconds: Double = 0.5) async throws -> Bool {
            try await Task.sleep(for: .seconds(seconds))
            try controller.processPendingChanges()
            return controller.layout == expectedLayout(try await database.allRows())
        }
    }

    func withAttack(_ body: (Attack) async throws -> Void) async throws {
        let database = try await PostgresItems()
        do {
            let ids = try await database.insert(PostgresControllerTests.items)
            let role = "watcher_" + UUID().uuidString.prefix(8).lowercased()
            try await database.run("CREATE ROLE \(role) LOGIN", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(role)")
            var configuration = database.configuration
            configuration.username = role
            let watcher = try await TestServer.connect(configuration)
            let recorder = Recorder()
            let controller = database.controller(recorder: recorder)
            try controller.performFetch()
            try controller.refresh()
            let feed = try #require(database.database.ownWrites.listeners(under: "item").first)
            do {
                try await body(Attack(database: database, ids: ids, controller: controller, feed: feed, watcher: watcher,
                                      watcherConfiguration: configuration, watcherRole: role, recorder: recorder))
            } catch {
                try? await watcher.close()
                throw error
            }
            try? await watcher.close()
            try? await database.run("DROP OWNED BY \(role)", "DROP ROLE \(role)")
        } catch {
            await database.close()
            throw error
        }
        await database.close()
    }

    @Test func aForgedPayloadAtTheNextPositionIsNotApplied() async throws {
        try await withAttack { attack in
            // A real tap, applied from its notification as the owner's.
            let real = try #require(NotifiedCommit(text: try await attack.realNotification(of: "UPDATE item SET score = score + 1 WHERE id = \(attack.ids[0])")))
            #expect(try await attack.showsTheTable())
            // The same layout, the next position, another transaction, another zone and score.
            var forged = real
            forged.xid += 1_000
            forged.entries = forged.entries.map { entry in
                var entry = entry
                entry.position += 1
                entry.values = forged.columns.map { column in
                    switch column {
                    case "zone": "Africa"
                    case "score": "99"
                    default: entry.values?[forged.columns.firstIndex(of: column)!] ?? nil
                    }
                }
                return entry
            }
            let applied = outcomes(attack.feed).applied
            try await attack.forge(forged.text)
            #expect(try await notified(attack.feed) { $0.untrusted >= 1 })
            #expect(try await attack.showsTheTable())
            #expect(outcomes(attack.feed).applied == applied, "nothing forged was applied")
            // A real commit after it is still applied, and the row the forgery named was never moved.
            try await attack.database.run("UPDATE item SET score = score + 1 WHERE id = \(attack.ids[3])")
            #expect(try await attack.controller.processChanges { attack.controller.layout == expectedLayout(try await attack.database.allRows()) })
        }
    }

    @Test func everyOtherForgeryIsAtMostAHintAndChangesNothing() async throws {
        try await withAttack { attack in
            let real = try #require(NotifiedCommit(text: try await attack.realNotification(of: "UPDATE item SET score = score + 1 WHERE id = \(attack.ids[1])")))
            #expect(try await attack.showsTheTable())
            var gap = real
            gap.entries = gap.entries.map { var entry = $0; entry.position += 50; entry.values = nil; return entry }
            var plus = real
            plus.entries = plus.entries.map { var entry = $0; entry.position += 1; entry.values = nil; return entry }
            plus.wroteOtherTables = true
            var otherTable = real
            otherTable.table = "zone"
            otherTable.entries = otherTable.entries.map { var entry = $0; entry.position += 1; return entry }
            let cut = NotifiedCommit(xid: real.xid + 7, table: "item", columns: real.columns, entries: [], isCut: true)
            let payloads = [
                gap.text, plus.text, cut.text, otherTable.text, real.text,
                "lr2 1 4:item 1 4:zone 99 v \(attack.ids[2]) 6:Africa", "lr2 garbage", String(repeating: "é", count: 3_000),
                String(real.xid), "",
            ]
            for payload in payloads {
                try await attack.forge(payload)
            }
            #expect(try await notified(attack.feed) { $0.untrusted >= payloads.count })
            #expect(try await attack.showsTheTable(after: 1.5))
            #expect(attack.controller.refetchCount == 0, "no forgery made the controller fetch again")
        }
    }

    @Test func aFloodOfTenThousandCostsAtMostOneReadASecond() async throws {
        try await withAttack { attack in
            let real = try await attack.realNotification(of: "UPDATE item SET score = score + 1 WHERE id = \(attack.ids[2])")
            #expect(try await attack.showsTheTable())
            let reads = attack.feed.logReadsBegun
            let start = ContinuousClock.now
            // Ten thousand notifications from one statement, each a different text (PostgreSQL
            // folds identical ones of a transaction into one).
            try await attack.watcher.query("""
                SELECT pg_notify('liveresults_item', \(real) || ' ' || n) FROM generate_series(1, 10000) n
                """, logger: TestServer.logger)
            #expect(try await notified(attack.feed) { $0.untrusted >= 10_000 })
            // A real commit of the owner's in the middle of the flood still arrives.
            try await attack.database.run("UPDATE item SET score = score + 5 WHERE id = \(attack.ids[4])")
            #expect(try await attack.controller.processChanges { attack.controller.layout == expectedLayout(try await attack.database.allRows()) })
            let seconds = (ContinuousClock.now - start) / .seconds(1)
            let flooded = attack.feed.logReadsBegun - reads
            #expect(Double(flooded) <= Double(HintBudget.burst) + seconds + 2, "\(flooded) reads in \(seconds) s")
        }
    }

    @Test func theOwnersCommitsAreStillAppliedWithoutARead() async throws {
        try await withAttack { attack in
            let reads = attack.feed.logReadsBegun
            try await attack.database.run("UPDATE item SET score = score + 10 WHERE id = \(attack.ids[2])")
            #expect(try await notified(attack.feed) { $0.applied == 1 })
            #expect(try await attack.showsTheTable(after: 0))
            #expect(attack.feed.logReadsBegun == reads, "the owner's connection was believed from its first notification")
        }
    }

    /// A writer the feed did not know when it began to listen (a board opened after it): its
    /// first commit is held for one question about its sender, then applied from its
    /// notification, without a read of the log; its next ones at once.
    @Test func aNewWritersCommitsAreAppliedOnceAsked() async throws {
        try await withAttack { attack in
            let reads = attack.feed.logReadsBegun
            let writer = try await TestServer.connect(attack.database.configuration)
            for round in 0..<3 {
                try await writer.query("UPDATE item SET score = score + 1 WHERE id = \(attack.ids[round])", logger: TestServer.logger)
                #expect(try await attack.showsTheTable(), "round \(round)")
            }
            try await writer.close()
            // Counted just after the change reaches the controller.
            #expect(try await notified(attack.feed) { $0.applied == 3 }, "\(outcomes(attack.feed))")
            let outcomes = outcomes(attack.feed)
            #expect(outcomes.asked == 1 && outcomes.applied == 3 && outcomes.untrusted == 0, "\(outcomes)")
            #expect(attack.feed.logReadsBegun == reads, "no read of the log")
        }
    }

    /// Commands that connect, write and leave are a new backend each time, often gone before
    /// the question about them arrives (it then says they may not write): each commit is
    /// applied once asked, or read from the log at once when its sender had gone; past the
    /// questions' budget (no answer finds a writer to give a question back), read at once,
    /// however many come in a row (CI twice saw a board fall a second behind such taps).
    @Test func commandsThatConnectWriteAndLeaveAreEachShownAtOnce() async throws {
        try await withAttack { attack in
            let reads = attack.feed.logReadsBegun
            let rounds = HintBudget.burst * 3
            for round in 0..<rounds {
                let command = try await TestServer.connect(attack.database.configuration)
                try await command.query("UPDATE item SET score = score + 1 WHERE id = \(attack.ids[round % attack.ids.count])", logger: TestServer.logger)
                try await command.close()
                // At once: a question or a read put off to the budget's next second is too late.
                #expect(try await attack.controller.processChanges(forUpTo: 0.5) {
                    attack.controller.layout == expectedLayout(try await attack.database.allRows())
                }, "round \(round): \(outcomes(attack.feed))")
            }
            // Counted just after the change reaches the controller.
            #expect(try await notified(attack.feed) { $0.applied + $0.untrusted == rounds }, "\(outcomes(attack.feed))")
            let outcomes = outcomes(attack.feed)
            #expect(outcomes.deferred == 0, "\(outcomes)")
            #expect(attack.feed.logReadsBegun - reads <= outcomes.untrusted, "a read only for a sender that had gone")
        }
    }

    @Test func aSenderIsBelievedOnlyWhileItsVerdictIsFresh() {
        var trust = SenderTrust()
        let sender = SenderTrust.Sender(pid: 42, table: "item")
        let start = NIODeadline.now()
        #expect(trust.verdict(of: sender, now: start) == .unknown)
        let question = trust.takeQuestion()
        #expect(question == [sender])
        trust.learned(asked: question, writers: [sender: 10], at: start)
        #expect(trust.verdict(of: sender, now: start + .seconds(1)) == .writer)
        #expect(trust.takeQuestion().isEmpty)
        #expect(trust.verdict(of: sender, now: start + SenderTrust.askAgainAfter + SenderTrust.askAgainSpread) == .writer,
                "still believed, asked again meanwhile")
        #expect(trust.takeQuestion() == [sender])
        #expect(trust.verdict(of: sender, now: start + SenderTrust.trustedFor) == .unknown, "a verdict outlives its backend only so long")
        let other = SenderTrust.Sender(pid: 43, table: "item")
        _ = trust.verdict(of: other, now: start)
        trust.learned(asked: trust.takeQuestion(), writers: [:], at: start)
        #expect(trust.verdict(of: other, now: start) == .notWriter)
        #expect(trust.verdict(of: SenderTrust.Sender(pid: 42, table: "zone"), now: start) == .unknown, "a writer of one table is not one of another")
    }

    /// Feeds that learned of a writer at the same moment (boards that heard its first commit)
    /// ask about it again at moments of their own, not all at once.
    @Test func feedsAskAboutAWriterAgainAtMomentsOfTheirOwn() {
        let sender = SenderTrust.Sender(pid: 42, table: "item")
        let start = NIODeadline.now()
        let halfway = start + SenderTrust.askAgainAfter + .nanoseconds(SenderTrust.askAgainSpread.nanoseconds / 2)
        let askingByHalfway = (0..<50).map { _ in
            var trust = SenderTrust()
            trust.learned(asked: [sender], writers: [sender: 10], at: start)
            #expect(trust.verdict(of: sender, now: start + SenderTrust.askAgainAfter - .seconds(1)) == .writer)
            #expect(trust.takeQuestion().isEmpty, "not asked again before askAgainAfter")
            #expect(trust.verdict(of: sender, now: halfway) == .writer)
            return !trust.takeQuestion().isEmpty
        }
        #expect(askingByHalfway.contains(true) && askingByHalfway.contains(false), "50 feeds asked again at once: \(askingByHalfway)")
    }

    /// The writer last believed is remembered beside the verdicts (what a board hears most
    /// often costs no lookup), and an answer that it may no longer write outweighs that memory.
    @Test func aWriterLastBelievedIsForgottenWhenAnAnswerSaysOtherwise() {
        var trust = SenderTrust()
        let sender = SenderTrust.Sender(pid: 42, table: "item")
        let start = NIODeadline.now()
        trust.learned(asked: [sender], writers: [sender: 10], at: start)
        #expect(trust.verdict(of: sender, now: start + .seconds(1)) == .writer)
        #expect(trust.verdict(of: sender, now: start + .seconds(2)) == .writer, "believed again, from the memory")
        trust.learned(asked: [sender], writers: [:], at: start + .seconds(3))
        #expect(trust.verdict(of: sender, now: start + .seconds(4)) == .notWriter, "its role lost the right to write")
        #expect(trust.verdict(of: SenderTrust.Sender(pid: 42, table: "zone"), now: start + .seconds(4)) == .unknown)
    }

    @Test func theHintBudgetAllowsABurstThenOneAnInterval() {
        let start = NIODeadline.now()
        var budget = HintBudget(now: start)
        for _ in 0..<HintBudget.burst { #expect(budget.take(now: start) == nil) }
        #expect(budget.take(now: start) == start + HintBudget.interval)
        #expect(budget.take(now: start + HintBudget.interval) == nil)
        #expect(budget.take(now: start + HintBudget.interval) != nil)
        #expect(budget.take(now: start + HintBudget.interval * 10) == nil, "refilled, up to the burst")
        var spent = HintBudget(now: start)
        for _ in 0..<HintBudget.burst { _ = spent.take(now: start) }
        spent.refund()
        #expect(spent.take(now: start) == nil, "a read the log proved worth making is given back")
        #expect(spent.take(now: start) != nil)
        for _ in 0..<(HintBudget.burst * 2) { spent.refund() }
        for _ in 0..<HintBudget.burst { #expect(spent.take(now: start) == nil) }
        #expect(spent.take(now: start) != nil, "given back up to the burst, no more")
    }
}

/// A text set from a notification handler and read by the test.
private final class NIOLockedValueBoxText: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?
    func set(_ text: String) { lock.withLock { if value == nil { value = text } } }
    func get() -> String? { lock.withLock { value } }
}
