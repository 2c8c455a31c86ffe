import LiveResultsPostgres
import Testing

/// The cursor's rule, without a server: which entries a read takes, whatever the order of commits.
@Suite struct ChangeLogCursorTests {
    func entry(xid: UInt64, position: Int64) -> ChangeLogEntry {
        ChangeLogEntry(xid: xid, position: position, tableName: "team", changedID: position)
    }

    @Test func entriesOfARunningTransactionWaitAndAreReadOnceItEnds() {
        // A (xid 10) took position 1 and is running; B (xid 11) took position 2 and committed.
        // What a reader sees then is B's entry only, and the oldest running transaction is A.
        let start = ChangeLogCursor.start(snapshotXmin: 10)
        let first = start.advance(over: [entry(xid: 11, position: 2)], xmin: 10)
        #expect(first.read.isEmpty)
        // A commits: both entries are visible, nothing runs below 12.
        let second = first.cursor.advance(over: [entry(xid: 10, position: 1), entry(xid: 11, position: 2)], xmin: 12)
        #expect(second.read.map(\.position) == [1, 2])
        // Nothing is read twice.
        let third = second.cursor.advance(over: [entry(xid: 10, position: 1), entry(xid: 11, position: 2)], xmin: 12)
        #expect(third.read.isEmpty)
        #expect(third.cursor == second.cursor)
    }

    @Test func aLaterTransactionWithAnEarlierPositionIsNotSkipped() {
        // B (xid 10) started first but took position 2; A (xid 11) took position 1 and is
        // still running while B commits.
        let first = ChangeLogCursor.start(snapshotXmin: 10).advance(over: [entry(xid: 10, position: 2)], xmin: 11)
        #expect(first.read.map(\.position) == [2])
        let second = first.cursor.advance(over: [entry(xid: 11, position: 1), entry(xid: 10, position: 2)], xmin: 12)
        #expect(second.read.map(\.position) == [1])
    }

    @Test func theCursorMovesUpToXminWhenNothingIsRead() {
        let moved = ChangeLogCursor(xid: 3, position: 7).advance(over: [], xmin: 20)
        #expect(moved.read.isEmpty)
        #expect(moved.cursor == ChangeLogCursor(xid: 19, position: .max))
        // An entry of xid 20, once 20 has ended, is after that cursor.
        #expect(moved.cursor.advance(over: [entry(xid: 20, position: 1)], xmin: 21).read.count == 1)
    }

    @Test func startReadsTheSnapshotsOwnXminAndLater() {
        let start = ChangeLogCursor.start(snapshotXmin: 10)
        #expect(!start.reads(entry(xid: 9, position: 100), xmin: 50))
        #expect(start.reads(entry(xid: 10, position: 1), xmin: 50))
        #expect(start.reads(entry(xid: 49, position: 1), xmin: 50))
        #expect(!start.reads(entry(xid: 50, position: 1), xmin: 50))
    }

    @Test func entriesAreReadInTransactionOrderThenPosition() {
        let entries = [entry(xid: 12, position: 1), entry(xid: 11, position: 5), entry(xid: 11, position: 3)]
        let read = ChangeLogCursor(xid: 0, position: 0).advance(over: entries, xmin: 13).read
        #expect(read.map(\.position) == [3, 5, 1])
    }
}
