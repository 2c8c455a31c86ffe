import Foundation
import ThrowawayPostgres
import WorldCup

/// Every measurement of one size on PostgreSQL, on a database built for it on `server` and
/// dropped afterwards: the controller against LISTEN + refetch + diff, the same tap without
/// the change log (the floor), the cold fetch against the bare select of its keys, and the memory of a process holding the controller.
struct PostgresSizeBenchmark {
    var rows: Int
    var taps: Int
    var peerTaps: Int
    var seed: UInt64
    var server: PostgresURL

    func run() throws -> SizeResult {
        let label = "[\(rows) teams, PostgreSQL]"
        Progress.say("\(label) building the database")
        let buildStart = Monotonic.now()
        let board = try PostgresBoard.build(rows: rows, server: server, seed: seed)
        defer { board.drop() }
        Progress.say("\(label) built in \(Report.format(Monotonic.milliseconds(from: buildStart, to: Monotonic.now()) / 1000, decimals: 2)) s (COPY, indexes, VACUUM ANALYZE, change log)")

        for (name, sql) in [("key query", PostgresBoard.keyQuerySQL), ("peer query", PostgresBoard.peerSQL)] {
            let plan = try board.plan(sql)
            if PostgresBoard.readsIndexInOrder(plan) {
                Progress.say("\(label) the \(name) reads \(PostgresBoard.indexName) in order: \(plan.first ?? "")")
            } else {
                Progress.say("\(label) warning: the \(name) does not read \(PostgresBoard.indexName) in order:\n  " + plan.joined(separator: "\n  "))
            }
        }

        let bareTimes = try PostgresBareSelect.times(board: board, rows: rows, runs: SizeBenchmark.fetchRuns)
        let bareSelect = Percentiles(bareTimes).median ?? 0
        Progress.say("\(label) bare SELECT id, <sort keys> … ORDER BY, streamed here (new connection): \(bareTimes.map { Report.format($0, decimals: 1) }.joined(separator: ", ")) ms; median \(Report.format(bareSelect, decimals: 1)) ms")
        let fetchTimes = try PostgresControllerContender.fetchTimes(board: board, rows: rows, runs: SizeBenchmark.fetchRuns)
        let fetchCold = Percentiles(fetchTimes).median ?? 0
        Progress.say("\(label) performFetch cold (new connection): \(fetchTimes.map { Report.format($0, decimals: 1) }.joined(separator: ", ")) ms; median \(Report.format(fetchCold, decimals: 1)) ms, \(Report.format(fetchCold / max(bareSelect, 0.001), decimals: 2))× the bare select")

        let plan = BenchDatabase.tapPlan(rows: rows, count: max(taps, peerTaps), seed: seed &+ 1)
        let warmUp = BenchDatabase.tapPlan(rows: rows, count: SizeBenchmark.warmUpTaps, seed: seed &+ 2)

        Progress.say("\(label) controller, taps through PostgresWriter.write (the commit handed over from the UPDATE's answer): \(SizeBenchmark.warmUpTaps) warm-up taps, then \(taps) measured")
        let oursRun = try PostgresControllerContender.measure(board: board, rows: rows, warmUp: warmUp, taps: Array(plan.prefix(taps)), path: .written)
        let ours = Percentiles(oursRun.latencies)
        let oursP50 = ours.median ?? 0
        let oursP99 = ours.p99 ?? 0
        func p50(_ sample: [Double]) -> String { Report.format(Percentiles(sample).median ?? 0, decimals: 1) }
        Progress.say("\(label) controller: p50 \(Report.format(oursP50, decimals: 1)) µs, p99 \(Report.format(oursP99, decimals: 1)) µs (p50s: UPDATE with the log's triggers and the hand-over \(p50(oursRun.breakdown.update)) µs, then processPendingChanges until the batch \(p50(oursRun.breakdown.apply)) µs)")

        Progress.say("\(label) controller, notified path (a plain UPDATE, as another process's tap): \(SizeBenchmark.warmUpTaps) warm-up taps, then \(taps) measured")
        let notifiedRun = try PostgresControllerContender.measure(board: board, rows: rows, warmUp: warmUp, taps: Array(plan.prefix(taps)), path: .notified)
        let notified = Percentiles(notifiedRun.latencies)
        Progress.say("\(label) controller, notified path: p50 \(Report.format(notified.median ?? 0, decimals: 1)) µs, p99 \(Report.format(notified.p99 ?? 0, decimals: 1)) µs (p50s: UPDATE with the log's triggers \(p50(notifiedRun.breakdown.update)) µs, then NOTIFY and the feed's log read until onChangesAvailable \(p50(notifiedRun.breakdown.wake)) µs, then processPendingChanges until the batch \(p50(notifiedRun.breakdown.apply)) µs)")

        Progress.say("\(label) peer (LISTEN + refetch ids + difference(from:)): \(SizeBenchmark.peerWarmUpTaps) warm-up taps, then \(peerTaps) measured")
        let peerRun = try PostgresRefetchDiffPeer.measure(board: board, rows: rows, warmUp: Array(warmUp.prefix(SizeBenchmark.peerWarmUpTaps)),
                                                          taps: Array(plan.prefix(peerTaps)))
        let peer = Percentiles(peerRun.latencies)
        let peerP50 = peer.median ?? 0
        Progress.say("\(label) peer: p50 \(Report.format(peerP50, decimals: 1)) µs, p99 \(Report.format(peer.p99 ?? 0, decimals: 1)) µs (p50s: UPDATE sent until notified \(p50(peerRun.notifyTimes)) µs; difference(from:) \(p50(peerRun.diffTimes)) µs)")

        let memory = try MemoryProbe.measure(probeArguments: ["--database-url", board.url.connectionString])
        let rssMB = Double(memory.rssKB) / 1024
        Progress.say("\(label) memory probe: \(Report.format(rssMB, decimals: 1)) MB resident holding the controller (\(Report.format(Double(memory.baselineKB) / 1024, decimals: 1)) MB before connecting, peak \(Report.format(Double(memory.peakKB) / 1024, decimals: 1)) MB)")

        // Last: the floor drops the change log's triggers.
        Progress.say("\(label) floor (the same tap, its UPDATE and history entry, with no change log's trigger and no listener): \(SizeBenchmark.warmUpTaps) warm-up taps, then \(taps) measured")
        let floor = Percentiles(try PostgresFloorContender.measure(board: board, warmUp: warmUp, taps: Array(plan.prefix(taps))))
        Progress.say("\(label) floor: p50 \(Report.format(floor.median ?? 0, decimals: 1)) µs, p99 \(Report.format(floor.p99 ?? 0, decimals: 1)) µs; ours is \(Report.format(oursP50 / max(floor.median ?? 1, 0.001), decimals: 2))× the floor")

        return SizeResult(
            store: .postgres,
            rows: rows,
            incrementalP50: oursP50,
            incrementalP99: oursP99,
            peerP50: peerP50,
            peerP99: peer.p99 ?? 0,
            speedup: oursP50 > 0 ? peerP50 / oursP50 : 0,
            fetchColdMs: fetchCold,
            bareSelectMs: bareSelect,
            fetchCachedMs: nil,
            rssMB: rssMB,
            crossProcessP50Ms: nil,
            crossProcessP99Ms: nil,
            floorP50: floor.median ?? 0,
            floorP99: floor.p99 ?? 0
        )
    }
}
