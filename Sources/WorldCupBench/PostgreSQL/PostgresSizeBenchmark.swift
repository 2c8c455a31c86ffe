import Foundation
import ThrowawayPostgres
import WorldCup

/// Every measurement of one size on PostgreSQL, on a database built for it on `server` and
/// dropped afterwards: the controller against LISTEN + refetch + diff, the same tap without
/// the change log (the floor), the cold fetch against the bare select of its keys, and the memory of a process holding the controller.
struct PostgresSizeBenchmark {
    var settings: SizeSettings
    var server: PostgresURL

    func run() throws -> SizeResult {
        let (rows, taps, peerTaps, seed) = (settings.rows, settings.taps, settings.peerTaps, settings.seed)
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

        let steps = SizeSteps(label: label)
        let bareSelect = steps.median("bare SELECT id, <sort keys> … ORDER BY, streamed here (new connection)",
                                      try PostgresBareSelect.times(board: board, rows: rows, runs: SizeBenchmark.fetchRuns))
        let fetchCold = steps.median("performFetch cold (new connection)", try PostgresControllerContender.fetchTimes(board: board, rows: rows, runs: SizeBenchmark.fetchRuns),
                                     versus: ("bare select", bareSelect))

        let plan = BenchDatabase.tapPlan(rows: rows, count: max(taps, peerTaps), seed: seed &+ 1)
        let warmUp = BenchDatabase.tapPlan(rows: rows, count: SizeBenchmark.warmUpTaps, seed: seed &+ 2)
        let p50 = SizeSteps.p50

        Progress.say("\(label) controller, taps through PostgresWriter.write (the commit handed over from the UPDATE's answer): \(SizeBenchmark.warmUpTaps) warm-up taps, then \(taps) measured")
        let oursRun = try PostgresControllerContender.measure(board: board, rows: rows, warmUp: warmUp, taps: Array(plan.prefix(taps)), path: .written)
        let ours = steps.latencies("controller", oursRun.latencies,
                                   detail: "p50s: UPDATE with the log's triggers and the hand-over \(p50(oursRun.breakdown.update)) µs, then processPendingChanges until the batch \(p50(oursRun.breakdown.apply)) µs")

        Progress.say("\(label) controller, notified path (a plain UPDATE, as another process's tap): \(SizeBenchmark.warmUpTaps) warm-up taps, then \(taps) measured")
        let notifiedRun = try PostgresControllerContender.measure(board: board, rows: rows, warmUp: warmUp, taps: Array(plan.prefix(taps)), path: .notified)
        _ = steps.latencies("controller, notified path", notifiedRun.latencies,
                            detail: "p50s: UPDATE with the log's triggers \(p50(notifiedRun.breakdown.update)) µs, then NOTIFY and the feed's log read until onChangesAvailable \(p50(notifiedRun.breakdown.wake)) µs, then processPendingChanges until the batch \(p50(notifiedRun.breakdown.apply)) µs")

        Progress.say("\(label) peer (LISTEN + refetch ids + difference(from:)): \(SizeBenchmark.peerWarmUpTaps) warm-up taps, then \(peerTaps) measured")
        let peerRun = try PostgresRefetchDiffPeer.measure(board: board, rows: rows, warmUp: Array(warmUp.prefix(SizeBenchmark.peerWarmUpTaps)),
                                                          taps: Array(plan.prefix(peerTaps)))
        let peer = steps.latencies("peer", peerRun.latencies,
                                   detail: "p50s: UPDATE sent until notified \(p50(peerRun.notifyTimes)) µs; difference(from:) \(p50(peerRun.diffTimes)) µs")

        let rssMB = steps.memory(try MemoryProbe.measure(probeArguments: ["--database-url", board.url.connectionString]), before: "before connecting")

        // Last: the floor drops the change log's triggers.
        Progress.say("\(label) floor (the same tap, its UPDATE and history entry, with no change log's trigger and no listener): \(SizeBenchmark.warmUpTaps) warm-up taps, then \(taps) measured")
        let floor = Percentiles(try PostgresFloorContender.measure(board: board, warmUp: warmUp, taps: Array(plan.prefix(taps))))
        Progress.say("\(label) floor: p50 \(Report.format(floor.median ?? 0, decimals: 1)) µs, p99 \(Report.format(floor.p99 ?? 0, decimals: 1)) µs; ours is \(Report.format((ours.median ?? 0) / max(floor.median ?? 1, 0.001), decimals: 2))× the floor")

        return SizeResult(store: .postgres, rows: rows, ours: ours, peer: peer, floor: floor, fetchColdMs: fetchCold, bareSelectMs: bareSelect, rssMB: rssMB)
    }
}
