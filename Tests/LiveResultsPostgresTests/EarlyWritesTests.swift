import LiveResults
@testable import LiveResultsPostgres
import Testing

/// The rules that keep writes applied from their own answers and the log's later reads of
/// them in step, without a server.
@Suite struct EarlyWritesTests {
    func key(_ wins: Int) -> RowKey { RowKey(section: .null, sort: [wins.columnValue]) }
    func ids(_ rows: [(id: RecordID, key: RowKey?)]) -> [RecordID] { rows.map(\.id) }

    @Test func aWriteTheCursorHasReadIsDropped() {
        var early = EarlyWrites()
        // A read whose snapshot saw transaction 10 finish (xmax 11, nothing running) read its
        // rows' keys then, maybe newer than the write's: the write's own keys must not win.
        let cursor = ChangeLogCursor(position: 5).after(5, snapshot: ChangeLogSnapshot(running: [], unfinishedFrom: 11))
        let accepted1 = early.accept(xid: 10, ids: [1], sequence: 1, sentAfter: 0, cursor: cursor)
        #expect(!accepted1)
        // Still running at the last read, or newer than its xmax: not read yet.
        let running = ChangeLogCursor(position: 5, inProgress: [10], unfinishedFrom: 11)
        let accepted2 = early.accept(xid: 10, ids: [1], sequence: 1, sentAfter: 0, cursor: running)
        #expect(accepted2)
        let accepted3 = early.accept(xid: 12, ids: [2], sequence: 2, sentAfter: 1, cursor: running)
        #expect(accepted3)
        let accepted4 = early.accept(xid: 12, ids: [2], sequence: 3, sentAfter: 2, cursor: running)
        #expect(!accepted4, "one transaction is applied once")
    }

    @Test func theLogSkipsRowsOnlyEarlyWritesNamedAndReadsTheOthers() {
        var early = EarlyWrites()
        let accepted5 = early.accept(xid: 10, ids: [1, 2], sequence: 1, sentAfter: 0, cursor: ChangeLogCursor(position: 0, unfinishedFrom: 10))
        #expect(accepted5)
        // The read after 10 committed: row 1 was named by 10 only (reported already), row 2 by
        // 10 and 11 (11's change is new), row 3 by 11 only.
        let read = early.filter([(1, key(1)), (2, key(2)), (3, key(3))], transactions: [1: [10], 2: [10, 11], 3: [11]],
                                snapshot: ChangeLogSnapshot(running: [], unfinishedFrom: 12))
        #expect(ids(read) == [2, 3])
        #expect(early.isEmpty, "the write is forgotten once a read saw it finish")
        // Forgotten: a later entry of 10 (there is none; the cursor has passed it) would be read.
        let later = early.filter([(1, key(4))], transactions: [1: [10]], snapshot: ChangeLogSnapshot(running: [], unfinishedFrom: 12))
        #expect(ids(later) == [1])
    }

    @Test func anEntryOfAnEarlyTransactionForAnotherRowIsRead() {
        // An update that changed a row's id returns the new id only; the old id's entry of the
        // same transaction still comes from the log.
        var early = EarlyWrites()
        let accepted6 = early.accept(xid: 10, ids: [7], sequence: 1, sentAfter: 0, cursor: ChangeLogCursor(position: 0, unfinishedFrom: 10))
        #expect(accepted6)
        let read = early.filter([(6, nil), (7, key(1))], transactions: [6: [10], 7: [10]], snapshot: ChangeLogSnapshot(running: [], unfinishedFrom: 11))
        #expect(ids(read) == [6])
    }

    @Test func aReadOlderThanAnEarlyWriteDoesNotUndoIt() {
        var early = EarlyWrites()
        let accepted7 = early.accept(xid: 10, ids: [1], sequence: 1, sentAfter: 0, cursor: ChangeLogCursor(position: 0, unfinishedFrom: 9))
        #expect(accepted7)
        // A read taken before 10 committed (10 running) arrives after the hand-over: its key of
        // row 1 (named by 9's entry) is older than the one applied; row 2 is news.
        let read = early.filter([(1, key(0)), (2, key(5))], transactions: [1: [9], 2: [9]], snapshot: ChangeLogSnapshot(running: [10], unfinishedFrom: 11))
        #expect(ids(read) == [2])
        #expect(!early.isEmpty, "10 is still to come from the log")
        let next = early.filter([(1, key(1))], transactions: [1: [10]], snapshot: ChangeLogSnapshot(running: [], unfinishedFrom: 11))
        #expect(next.isEmpty, "10's own entry is not reported twice")
        #expect(early.isEmpty)
    }

    @Test func writesThatMayHaveRacedOnARowAreLeftToTheLog() {
        var early = EarlyWrites()
        let cursor = ChangeLogCursor(position: 0, unfinishedFrom: 10)
        let accepted8 = early.accept(xid: 11, ids: [1], sequence: 1, sentAfter: 0, cursor: cursor)
        #expect(accepted8)
        // Sent before 11 was handed over: which of the two wrote row 1 last is unknown.
        let accepted9 = early.accept(xid: 10, ids: [1, 2], sequence: 2, sentAfter: 0, cursor: cursor)
        #expect(!accepted9)
        // Sent after: it wrote last.
        let accepted10 = early.accept(xid: 12, ids: [1], sequence: 2, sentAfter: 1, cursor: cursor)
        #expect(accepted10)
        // Other rows never race.
        let accepted11 = early.accept(xid: 13, ids: [3], sequence: 3, sentAfter: 0, cursor: cursor)
        #expect(accepted11)
    }
}
