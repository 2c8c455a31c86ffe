import NIOCore
import PostgresNIO

// Whether notifications reach the connection at all (see `NotificationProbe`).
extension PostgresChangeFeed {
    /// Sends the probe from `sender`, a connection of its own (closed once it has sent it),
    /// gives it `NotificationProbe.patience` to come back, and holds the controller's reads
    /// back meanwhile.
    func send(_ probe: NotificationProbe, from sender: EventLoopFuture<PostgresConnection>, generation: Int) {
        awaitAnswer(since: .now())
        database.gate.holdReads(until: probe.verdict.futureResult)
        database.notify(channel: probe.channel, payload: probe.payload, from: sender)
        eventLoop.scheduleTask(in: NotificationProbe.patience) { [weak self] in
            guard let self, generation == self.generation, self.probe === probe else { return }
            self.settle(probe: false)
        }
    }

    /// A notification on the probe's channel, in time: the connection hears notifications,
    /// and the log read may be prepared on it. (One that comes after the probe was given up
    /// is ignored: a pooler hands it over with the feed's next statement.)
    func probeReturned(_ payload: String, generation: Int) {
        guard generation == self.generation, let probe, payload == probe.payload else { return }
        if reading == nil { unansweredSince = nil }
        settle(probe: true)
    }

    /// Ends the probe with its verdict, and lets the reads it held back run.
    private func settle(probe heard: Bool) {
        let ended = probe
        probe = nil
        let before = notificationsHeard.withLockedValue { known in
            defer { known = heard }
            return known
        }
        // The controller is woken when `pollInterval` may have changed (the title says it).
        if before != heard { notify() }
        ended?.verdict.succeed()
        // The read the probe held back carries the wait on; with none, nothing is awaited.
        if readRequested { requestRead(now: true) } else if reading == nil { unansweredSince = nil }
    }
}
