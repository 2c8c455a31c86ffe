import LiveResultsPostgres
import Testing

/// The cursor's rule, without a server: which entries a read takes, whatever the order of commits.
@Suite struct ChangeLogCursorTests {
    func entry(xid: UInt64, position: Int64) -> ChangeLogEntry {
        ChangeLogEntry(xid: xid, position: position, tableName: "team", changedID: position)
    }

    @Test func anEarlierPositionCommittedLaterIsReadOnceItCommits() {
        // A (xid 10) took position 1 and is running; B (xid 11) took position 2 and committed.
        // A read then sees B's entry only, and A among the running transactions.
        let first = ChangeLogCursor(position: 0).advance(over: [entry(xid: 11, position: 2)], snapshot: ChangeLogSnapshot(running: [10]))
        #expect(first.read.map(\.position) == [2])
        #expect(first.cursor == ChangeLogCursor(position: 2, inProgress: [10]))
        // A commits: both entries are visible; only A's is new.
        let second = first.cursor.advance(over: [entry(xid: 10, position: 1), entry(xid: 11, position: 2)], snapshot: ChangeLogSnapshot(running: []))
        #expect(second.read.map(\.position) == [1])
        // Nothing is read twice.
        let third = second.cursor.advance(over: [entry(xid: 10, position: 1), entry(xid: 11, position: 2)], snapshot: ChangeLogSnapshot(running: []))
        #expect(third.read.isEmpty)
        #expect(third.cursor == ChangeLogCursor(position: 2))
    }

    @Test func aTransactionThatRolledBackIsForgotten() {
        let waiting = ChangeLogCursor(position: 5, inProgress: [7])
        // 7 rolled back: its entries never become visible, and it no longer runs.
        let next = waiting.advance(over: [entry(xid: 8, position: 6)], snapshot: ChangeLogSnapshot(running: []))
        #expect(next.read.map(\.position) == [6])
        #expect(next.cursor == ChangeLogCursor(position: 6))
    }

    @Test func aReadTakesNewPositionsAndTheEntriesOfTransactionsItWaitedFor() {
        let cursor = ChangeLogCursor(position: 10, inProgress: [20, 30])
        #expect(!cursor.reads(entry(xid: 5, position: 9)))
        #expect(cursor.reads(entry(xid: 5, position: 11)))
        #expect(cursor.reads(entry(xid: 20, position: 3)))
        #expect(cursor.reads(entry(xid: 30, position: 10)))
        #expect(!cursor.reads(entry(xid: 25, position: 10)))
    }

    @Test func entriesAreReadInPositionOrder() {
        let entries = [entry(xid: 12, position: 4), entry(xid: 11, position: 5), entry(xid: 11, position: 3)]
        #expect(ChangeLogCursor(position: 0).advance(over: entries, snapshot: ChangeLogSnapshot(running: [])).read.map(\.position) == [3, 4, 5])
    }

    @Test func aCursorBehindWhatPruningDeletedKnowsItMayHaveMissedEntries() {
        let mark = PrunedMark(position: 100, xid: 40)
        #expect(ChangeLogCursor(position: 99).mayHaveMissedEntries(prunedThrough: mark))
        #expect(!ChangeLogCursor(position: 100).mayHaveMissedEntries(prunedThrough: mark))
        // A transaction we wait for, as old as the newest one pruned: its entries may be gone.
        #expect(ChangeLogCursor(position: 150, inProgress: [40]).mayHaveMissedEntries(prunedThrough: mark))
        #expect(!ChangeLogCursor(position: 150, inProgress: [41]).mayHaveMissedEntries(prunedThrough: mark))
    }

    @Test func aTransactionFromTheSnapshotsXmaxOnIsWaitedForThoughNotListedAsRunning() {
        // A (xid 10) and B (xid 11) are running; B takes position 1, A position 2, and A
        // commits. PostgreSQL's snapshot then has xmax 11 (one past the newest finished
        // transaction) and lists nothing as running: B is running all the same.
        let first = ChangeLogCursor(position: 0).advance(over: [entry(xid: 10, position: 2)], snapshot: ChangeLogSnapshot(unfinishedFrom: 11))
        #expect(first.read.map(\.position) == [2])
        #expect(first.cursor == ChangeLogCursor(position: 2, unfinishedFrom: 11))
        // B commits: its entry, below the cursor's position, is read then, once.
        let both = [entry(xid: 11, position: 1), entry(xid: 10, position: 2)]
        let second = first.cursor.advance(over: both, snapshot: ChangeLogSnapshot(unfinishedFrom: 12))
        #expect(second.read.map(\.position) == [1])
        #expect(second.cursor.advance(over: both, snapshot: ChangeLogSnapshot(unfinishedFrom: 12)).read.isEmpty)
    }

    @Test func aSnapshotIsReadFromPostgresText() {
        #expect(ChangeLogSnapshot(text: "725:725:") == ChangeLogSnapshot(running: [], unfinishedFrom: 725))
        #expect(ChangeLogSnapshot(text: "10:20:10,14") == ChangeLogSnapshot(running: [10, 14], unfinishedFrom: 20))
        #expect(ChangeLogSnapshot(text: "10:20") == nil)
        #expect(ChangeLogSnapshot(text: "10:x:") == nil)
        #expect(ChangeLogSnapshot(text: "10:20:10,y") == nil)
    }

    @Test func aCursorWaitingFromAnXmaxThatPruningPassedKnowsItMayHaveMissedEntries() {
        let mark = PrunedMark(position: 100, xid: 40)
        #expect(ChangeLogCursor(position: 150, unfinishedFrom: 40).mayHaveMissedEntries(prunedThrough: mark))
        #expect(!ChangeLogCursor(position: 150, unfinishedFrom: 41).mayHaveMissedEntries(prunedThrough: mark))
    }
}
