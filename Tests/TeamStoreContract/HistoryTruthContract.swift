import Foundation
import Synchronization
import Testing
import WorldCup

/// The history's truth under concurrent writers: random taps, adds, deletes, edits, undos
/// and redos from several stores at once (several sharing an author), then three checks of
/// the history against itself and the table.
public enum HistoryTruthContract {
    /// Runs `steps` random changes on each of `authors.count` stores (`open(author)`) at once,
    /// then checks the history.
    /// With `connectionsCut`, a change that fails because its connection was cut (one
    /// sentence about the server) is expected; the history must tell the truth all the same.
    public static func check(_ open: UndoContract.Open, authors: [String], steps: Int, seed: UInt64, connectionsCut: Bool = false) throws {
        let start = try open(authors[0])
        let initial = try start.teams()
        let firstEntry = try start.history(limit: 1).first?.id ?? 0
        let stores = try authors.map(open)
        let unexpected = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: stores.count) { worker in
            var random = Generator(seed: seed &+ UInt64(worker))
            let store = stores[worker]
            for step in 0..<steps {
                do {
                    try randomChange(store, worker: worker, step: step, &random)
                } catch is Refusal, is ZoneMergeNeeded {
                    // A rule said no: nothing was written.
                } catch {
                    // A rule of an edit, an add or a delete (a name taken, a team gone) is one
                    // sentence too; what touches the database itself is not expected.
                    let sentence = "\(error)"
                    let aboutTheConnection = ["server", "database", "busy"].contains(where: sentence.contains)
                    if !(error is WorldCupError) || (aboutTheConnection && !connectionsCut) {
                        unexpected.withLock { $0.append(sentence) }
                    }
                }
            }
        }
        #expect(unexpected.withLock { $0 }.isEmpty, "\(unexpected.withLock { $0 })")
        let entries = try start.history(limit: HistoryEntry.retainedCount).filter { $0.id > firstEntry }.reversed()
        try checkUndoneMarks(Array(entries))
        try checkChainAndReplay(Array(entries), initial: initial, table: start.teams())
    }

    /// Every entry marked undone points at an entry that took back that very entry.
    static func checkUndoneMarks(_ entries: [HistoryEntry]) throws {
        let byID = Dictionary(uniqueKeysWithValues: entries.map { ($0.id, $0) })
        for entry in entries {
            if let undoneBy = entry.undoneBy {
                let taker = try #require(byID[undoneBy], "entry \(entry.id) undone by \(undoneBy), which is not there")
                #expect(taker.reverts == entry.id, "entry \(entry.id) is marked undone by \(undoneBy), which took back \(String(describing: taker.reverts))")
                #expect(entry.change.action == .undo ? taker.isRedo : taker.change.action == .undo)
            }
            if let reverts = entry.reverts {
                #expect(byID[reverts]?.undoneBy == entry.id, "entry \(entry.id) took back \(reverts), which is not marked so")
            }
        }
    }

    /// Each entry's values before are what the team's previous entry left, and replaying the
    /// entries over the first table gives the table.
    static func checkChainAndReplay(_ entries: [HistoryEntry], initial: [Team], table: [Team]) throws {
        var teams = Dictionary(uniqueKeysWithValues: initial.map { ($0.id!, $0) })
        for entry in entries {
            if let zone = entry.change.zone {
                replay(zone, on: &teams)
                continue
            }
            guard let id = entry.change.teamID else { continue }
            let before = teams[id]
            #expect(values(before) == values(entry.change.before), "entry \(entry.id) (\(entry.change.summary)) found \(String(describing: before))")
            teams[id] = entry.change.after
        }
        let replayed = teams.values.map(values).sorted { $0.name < $1.name }
        #expect(replayed == table.map(values).sorted { $0.name < $1.name }, "replaying the history gives the table")
    }

    /// A zone's change replayed on the teams by name (zone names are unique at any time): a
    /// rename renames every team's zone; a merge sends the zone's teams into the other; a
    /// merge taken back sends its teams back.
    static func replay(_ zone: ZoneChange, on teams: inout [Int64: Team]) {
        for (id, var team) in teams {
            switch (zone.before, zone.after) {
            case (let before?, let after?) where team.qualifyingZone == before.name: team.qualifyingZone = after.name
            case (let before?, nil) where team.qualifyingZone == before.name: team.qualifyingZone = zone.into?.name ?? ""
            case (nil, let after?) where zone.teamIDs.contains(id): team.qualifyingZone = after.name
            default: continue
            }
            teams[id] = team
        }
    }

    struct Values: Equatable {
        var name: String, zone: String, wins: Int
    }

    static func values(_ team: Team?) -> Values? {
        team.map { Values(name: $0.teamName, zone: $0.qualifyingZone, wins: $0.wins) }
    }

    static func values(_ team: Team) -> Values {
        Values(name: team.teamName, zone: team.qualifyingZone, wins: team.wins)
    }

    static func randomChange(_ store: any TeamStore, worker: Int, step: Int, _ random: inout Generator) throws {
        let teams = try store.teams()
        guard let team = teams.isEmpty ? nil : teams[Int(random.next() % UInt64(teams.count))] else {
            try store.add(name: "Team \(worker)-\(step)", zone: "Oceania")
            return
        }
        switch random.next() % 11 {
        case 8:
            // A rename, to one of few names: often another zone's, then the merge it asks for.
            let zones = try store.zones()
            let zone = zones[Int(random.next() % UInt64(zones.count))].zone
            let name = ["Oceania", "OFC", "Asia", "AFC", "asia"][Int(random.next() % 5)]
            do {
                try store.renameZone(zoneID: zone.id!, to: name)
            } catch let merge as ZoneMergeNeeded {
                try store.mergeZone(zoneID: merge.zone.id!, into: merge.into.id!)
            }
        case 9:
            let zones = try store.zones()
            let zone = zones[Int(random.next() % UInt64(zones.count))].zone
            try store.moveZone(zoneID: zone.id!, to: Int(random.next() % UInt64(zones.count)))
        case 10: try store.edit(teamID: team.id!, name: nil, zone: ["Oceania", "Europe", "AFC"][Int(random.next() % 3)], wins: nil)
        case 0, 1: try store.tap(teamID: team.id!)
        case 2: try store.add(name: "Team \(worker)-\(step)", zone: random.next() % 2 == 0 ? "Oceania" : "Asia")
        case 3: try store.delete(teamID: team.id!)
        case 4: try store.edit(teamID: team.id!, name: random.next() % 2 == 0 ? "\(team.teamName)'" : nil, zone: nil, wins: Int(random.next() % 5))
        case 5, 6: try store.undoLast()
        default: try store.redoLast()
        }
    }

    /// SplitMix64, here so the contract needs nothing but WorldCup.
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
