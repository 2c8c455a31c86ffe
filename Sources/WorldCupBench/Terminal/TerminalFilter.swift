import Foundation

// The "/" filter in the terminal: keypress → screen for each character typed into it.

/// What the `/` filter measured, in milliseconds.
struct FilterLatency {
    /// Each character of a filter that keeps matching every generated team ("team ").
    var keepingAll: KeyLatency
    /// Each character of a filter that narrows ("12345": about half the teams, then fewer).
    var narrowing: KeyLatency
    /// Each Backspace that erases the narrowing filter again, one character at a time (each
    /// widens it: found afresh).
    var erasing: KeyLatency
    /// Every filter key, the three kinds together.
    var all: KeyLatency
    /// "/" itself, which opens the filter: to its prompt.
    var open: KeyLatency
    /// "/" to the frame that shows the names read (the app reads them in the background
    /// while the prompt takes keys, and says "reading names…" meanwhile); "/" alone when the
    /// names come with the prompt.
    var ready: KeyLatency
    /// Esc, which clears the filter and shows the whole board again.
    var clear: KeyLatency
    /// The app's resident memory, in MB: showing the board before the first "/", and the
    /// most seen while a filter was typed.
    var boardRSSMB: Double
    var filteredRSSMB: Double
}

extension TerminalBenchmark {
    /// Typed one character at a time: matches every generated name ("Team 0000001"), and
    /// matches fewer and fewer of them (about half, a twentieth, … some thirty at a million).
    static let filterKeepingAll = "team "
    static let filterNarrowing = "12345"

    /// Rounds of "/", a filter typed one key at a time, Esc, then the other filter, erased
    /// with Backspace before its Esc; one warm-up round first. Each key is timed to the last
    /// byte of the frame that answers it.
    func measureFilter(_ session: PseudoTerminal, label: String) throws -> FilterLatency {
        let perRound = Self.filterKeepingAll.count + 2 * Self.filterNarrowing.count
        let rounds = max(1, (keys + perRound - 1) / perRound)
        var keepingAll: [Double] = [], narrowing: [Double] = [], erasing: [Double] = [], opens: [Double] = [], readies: [Double] = [], clears: [Double] = []
        // Each filter's times by the character typed (its place in the text), to tell which keys are slow.
        var byCharacter: [String: [[Double]]] = [:]
        let boardKB = try MemoryProbe.statusKB("VmRSS", of: session.pid)
        var filteredKB = 0
        for round in 0...rounds {
            for (text, isNarrowing) in [(Self.filterKeepingAll, false), (Self.filterNarrowing, true)] {
                let (open, ready) = try openFilter(in: session)
                var typed: [Double] = [], erased: [Double] = []
                for character in text { typed.append(try filterPress(Array(String(character).utf8), in: session)) }
                filteredKB = max(filteredKB, try MemoryProbe.statusKB("VmRSS", of: session.pid))
                if isNarrowing {
                    for _ in text { erased.append(try filterPress([0x7f], in: session)) }
                }
                let clear = try filterPress([0x1b], in: session)
                guard round > 0 else { continue }
                opens.append(open)
                readies.append(ready)
                clears.append(clear)
                if isNarrowing { narrowing += typed } else { keepingAll += typed }
                erasing += erased
                var times = byCharacter[text] ?? Array(repeating: [], count: typed.count + erased.count)
                for (place, time) in (typed + erased).enumerated() { times[place].append(time) }
                byCharacter[text] = times
            }
        }
        let result = FilterLatency(keepingAll: KeyLatency(keepingAll), narrowing: KeyLatency(narrowing), erasing: KeyLatency(erasing),
                                   all: KeyLatency(keepingAll + narrowing + erasing),
                                   open: KeyLatency(opens), ready: KeyLatency(readies), clear: KeyLatency(clears),
                                   boardRSSMB: Double(boardKB) / 1024, filteredRSSMB: Double(filteredKB) / 1024)
        func text(_ latency: KeyLatency) -> String {
            "p50 \(Report.format(latency.p50, decimals: 2)) ms, p99 \(Report.format(latency.p99, decimals: 2)) ms over \(latency.count)"
        }
        Progress.say("\(label) filter “\(Self.filterKeepingAll)” (keeps every team) per key: \(text(result.keepingAll))")
        Progress.say("\(label) filter “\(Self.filterNarrowing)” (narrows) per key: \(text(result.narrowing)); erased with Backspace (widens) per key: \(text(result.erasing))")
        for text in [Self.filterKeepingAll, Self.filterNarrowing] {
            // The keys typed, then the Backspaces that erase them (⌫ to the text left).
            let names = text.map { "“\($0)”" } + (0..<text.count).reversed().map { "⌫ “\(text.prefix($0))”" }
            let keys = zip(names, byCharacter[text] ?? []).map { name, times in
                "\(name) p50 \(Report.format(KeyLatency(times).p50, decimals: 2)) max \(Report.format(times.max() ?? 0, decimals: 2))"
            }
            Progress.say("\(label) filter “\(text)” by key (ms): \(keys.joined(separator: ", "))")
        }
        Progress.say("\(label) / (opens the filter): \(text(result.open)); to the names read: \(text(result.ready)); Esc (clears it): \(text(result.clear))")
        Progress.say("\(label) the app's resident memory: \(Report.format(result.boardRSSMB, decimals: 1)) MB showing the board, up to \(Report.format(result.filteredRSSMB, decimals: 1)) MB while filtered")
        return result
    }

    /// "/": milliseconds to its prompt, and to the frame that shows the names read. The
    /// filter's keys are typed after that, so that each is timed against a filter in memory.
    private func openFilter(in session: PseudoTerminal) throws -> (open: Double, ready: Double) {
        let typed = Monotonic.now()
        guard let press = try press(Array("/".utf8), in: session, wait: 10) else {
            throw BenchError("The / key wrote nothing to the terminal within 10 s.")
        }
        guard String(decoding: press.frame.bytes, as: UTF8.self).contains(Self.readingNames) else {
            return (press.milliseconds, press.milliseconds)
        }
        guard let ready = try session.readFrame(quiet: Self.quiet, timeout: Self.readingNamesWait) else {
            throw BenchError("The / filter was still reading names after \(Int(Self.readingNamesWait)) s.")
        }
        return (press.milliseconds, Monotonic.milliseconds(from: typed, to: ready.lastByteAt))
    }

    /// What the app's title says while the filter reads the names, and how long that may last.
    static let readingNames = "reading names"
    static let readingNamesWait = 60.0

    /// One key of the filter: milliseconds to the last byte of the frame that answers it.
    private func filterPress(_ key: [UInt8], in session: PseudoTerminal) throws -> Double {
        guard let press = try press(key, in: session, wait: 10) else {
            throw BenchError("A key of the / filter wrote nothing to the terminal within 10 s.")
        }
        return press.milliseconds
    }
}
