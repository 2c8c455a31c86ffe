import NIOCore
import PostgresNIO

// Whether notifications reach the connection at all (see `NotificationProbe`).
extension PostgresChangeFeed {
    /// Sends the probe from another connection (`PostgresReader.sendProbe`), gives it
    /// `NotificationProbe.patience` to come back once the server has sent it, and holds the
    /// controller's reads back meanwhile.
    ///
    /// The patience runs from the server's answer, not from the start: making a sender's
    /// connection takes as long as the link and the server's load make it (a thousand viewers
    /// connecting at once, a server far away), and a probe given up for that would have the
    /// feed poll the log for good where notifications arrive.
    func send(_ probe: NotificationProbe, generation: Int) {
        database.gate.holdReads(until: probe.verdict.futureResult)
        // As bounded as a statement on a new connection: the reads it holds back wait no
        // longer than a connect and a statement.
        let givenUp = eventLoop.scheduleTask(in: database.connectingDeadline + database.deadline) { [weak self] in
            guard let self, generation == self.generation, self.probe === probe else { return }
            self.settle(probe: false)
        }
        probe.verdict.futureResult.whenComplete { _ in givenUp.cancel() }
        database.sendProbe(channel: probe.channel, payload: probe.payload, listeningAgain: cursor != nil, on: eventLoop).whenComplete { [weak self] sent in
            guard let self, generation == self.generation, self.probe === probe else { return }
            guard case .success = sent else { return self.settle(probe: false) }
            self.awaitAnswer(since: .now())
            self.eventLoop.scheduleTask(in: NotificationProbe.patience) { [weak self] in
                guard let self, generation == self.generation, self.probe === probe else { return }
                self.settle(probe: false)
            }
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
