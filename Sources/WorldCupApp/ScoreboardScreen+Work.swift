import LiveResults
import TerminalUI
import WorldCup

/// The store's work, off the board's loop: the model asks for a write and goes on; the write
/// runs where the store's work runs (`StoreWork`), and its outcome comes back as an event.
extension ScoreboardScreen {
    /// The sentence for a write asked for while the board's server is away.
    static let awaySentence = "The server is away, so nothing was changed: try again when the board is live."

    /// Asks the store for a write. While the server is away it is refused at once, not left
    /// to time out; while another change of its team is being saved, it is refused in one
    /// sentence (`u` and Ctrl-R wait for every change, in the model), but for a tap behind
    /// taps, which queues. Otherwise the board says it is being saved, and goes on.
    func ask(_ effect: BoardEffect) {
        if model.connection?.isLive == false {
            if case .add = effect { return send(.addRefused(Self.awaySentence)) }
            if case .renameZone = effect { return send(.zoneRenameRefused(Self.awaySentence)) }
            return send(.failed(Self.awaySentence))
        }
        if let refusal = model.refusalWhilePending(effect) { return send(.failed(refusal)) }
        model.beginWrite(effect, data: data)
        writesAsked += 1
        let screen = Handed(self)
        work.run { .written(effect, Result(catching: { try screen.value.write(effect) })) }
        if work.isInline { deliverFinishedWork() }
    }

    /// The shortest time between two reads of who made others' changes: in a storm the status
    /// line's sentence changes a few times a second, which is as fast as it can be read.
    static let namingInterval = 0.25

    /// The longest a key that would change a team waits for this board's change being saved.
    static let keyWait = 0.05

    /// Handles the keys that wait, in order, but for one that would change a team while a
    /// change of this board is being saved: that key and those after it wait for its outcome
    /// (`deliverFinishedWork()` hands them on), or until `keyWait` is over (`tick()`), when it
    /// goes anyway and a second change of the same team is refused. A tap never waits: it
    /// queues behind its team's taps (`BoardModel.queuesATap`), and its row shows it at once.
    /// The keys around it are never held longer: the board goes on while a write waits on a
    /// lock or a server.
    func handleWaitingKeys() {
        var ready: [Key] = []
        while let key = waitingKeys.first {
            if isSaving, model.mayAskForWrite(key), !model.queuesATap(key, data: data) {
                let since = keyWaitStart ?? clock()
                keyWaitStart = since
                if clock() < since + Self.keyWait { break }
            }
            keyWaitStart = nil
            ready.append(waitingKeys.removeFirst())
            // Handled one by one: the next key must see whether this one asked for a write.
            if model.mayAskForWrite(key) {
                handleNow(ready)
                ready = []
            }
        }
        handleNow(ready)
    }

    /// Asks who made the changes of other programs shown since the last time: one read at a
    /// time, of at most `OthersChangesReader.limit` entries, at most one every
    /// `namingInterval` (the next waits for `tick()`), and none while nothing new was shown;
    /// so however many commits arrive, never more than one read a frame.
    func nameOthers() {
        guard othersToName, !namingOthers else { return }
        let now = clock()
        guard now >= lastNaming + Self.namingInterval else {
            namingDue = lastNaming + Self.namingInterval
            return
        }
        othersToName = false
        namingOthers = true
        lastNaming = now
        namingDue = nil
        let reader = Handed(othersChanges)
        work.run { .named(reader.value.event()) }
        if work.isInline { deliverFinishedWork() }
    }

    /// Shows the outcomes of the store's work that finished since the last call, in the order
    /// they were asked for: a write's changes (`processChanges()`), then its outcome; who made
    /// others' changes. Returns whether any came. The app calls it when the work wakes the loop.
    @discardableResult
    public func deliverFinishedWork() -> Bool {
        let outcomes = work.takeFinished()
        for outcome in outcomes {
            switch outcome {
            case let .written(effect, .success(event)):
                processChanges()
                send(.finished(effect, event))
            case let .written(effect, .failure(error)):
                if scoreboard.damage(in: error) != nil { report(error) } else { send(.finished(effect, effect.outcome(of: error))) }
            case .named(let event):
                namingOthers = false
                if let event { send(event) }
                nameOthers()
            }
        }
        if !outcomes.isEmpty { handleWaitingKeys() }
        return !outcomes.isEmpty
    }

    /// Waits for the store's work asked for so far, and for what its outcomes ask in turn,
    /// and shows their outcomes: when the program ends, and in tests whose writes run off the loop.
    func finishWork() {
        repeat {
            work.waitUntilDone()
        } while deliverFinishedWork()
    }

    /// Whether changes of this board are being saved.
    public var isSaving: Bool { !model.pendingWrites.isEmpty }
}
