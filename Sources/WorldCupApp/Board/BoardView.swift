import Foundation
import TerminalUI
import WorldCup

/// Draws the board into a grid: the title line, the table, the status line, the footer, and
/// the help or the dialog over them. A pure function of the model and the data.
struct BoardView {
    let theme: Theme
    let flagStyle: FlagStyle
    /// The badges drawn so far (their colours are costly to choose).
    private let badges = BadgeCache()

    init(theme: Theme, flagStyle: FlagStyle) {
        self.theme = theme
        self.flagStyle = flagStyle
    }

    /// Draws the whole screen of `model`, laid out at its `screenSize`. Returns the grid and
    /// where the text caret belongs (nil: hidden).
    func render(_ model: BoardModel, data: some BoardData, now: Double) -> (grid: Grid, caret: (x: Int, y: Int)?) {
        let (width, height) = model.screenSize
        var grid = Grid(width: width, height: height)
        guard width >= BoardModel.minimumSize.width, height >= BoardModel.minimumSize.height else {
            let text = "Terminal too small (\(BoardModel.minimumSize.width)×\(BoardModel.minimumSize.height))"
            grid.write(DisplayText.truncate(text, toWidth: width), x: 0, y: 0, style: theme.error)
            return (grid, nil)
        }
        // Past the widest table, the extra width goes to margins: the title, the table, the
        // status line and the footer's keys share one column, centred.
        let column = BoardModel.contentColumn(width: width)
        drawTitle(model, count: data.teamCount, filterPending: data.isFilterPending, column: column, into: &grid)
        let (table, statusLines) = model.tableAsDrawn(width: width, height: height)
        table.draw(into: &grid, theme: theme.table, now: now) { position in
            let team = data.team(at: position)
            // Taps being saved show at once, added to the wins the result holds.
            return cell(team, filter: model.filter, saving: team?.id.map(model.isSaving(teamID:)) ?? false,
                        tapsSaving: team?.id.map(model.pendingTaps(teamID:)) ?? 0)
        }
        if model.table.rowCount == 0 {
            let empty = !(model.filter?.keepsEverything ?? true)
                ? "No team matches “\(model.filter?.text ?? "")”: Esc clears the filter."
                : "No teams yet: press + to add one."
            grid.write(DisplayText.truncate(empty, toWidth: column.width - 3), x: column.x + 2, y: 2, style: theme.status)
        }
        var caret: (x: Int, y: Int)?
        if let filter = model.filter, model.isEditingFilter {
            caret = drawFilterPrompt(filter, column: column, into: &grid)
        } else if !statusLines.isEmpty {
            let style = model.status?.isError == true ? theme.error : theme.status
            for (index, line) in statusLines.enumerated() {
                grid.write(line, x: column.x + 1, y: height - 1 - statusLines.count + index, style: style)
            }
        }
        grid.fill(Rect(x: 0, y: height - 1, width: width, height: 1), style: theme.footer)
        // The footer's keys may take the whole width, past the board's column (the zone's keys
        // come last, on a wide screen only): they start with the column, or as far left as
        // they need.
        let footer = Self.footer(footerKeys(model), width: width - 2)
        let footerX = min(column.x + 1, width - 1 - DisplayText.width(footer))
        grid.write(DisplayText.glyphs(footer), x: footerX, y: height - 1, style: theme.footer)
        let screen = Rect(x: 0, y: 0, width: width, height: height)
        model.help?.render(into: &grid, area: screen, frame: theme.dialog, keys: theme.helpKeys)
        if let dialog = model.dialog {
            caret = dialog.render(into: &grid, area: screen, frame: theme.dialog, field: theme.dialogField, selection: theme.dialogSelection, error: theme.error)
        }
        return (grid, caret)
    }

    /// The footer's keys for what the keys do now, most wanted last: the ones that fit the
    /// width are shown (`footer(_:width:)`).
    private func footerKeys(_ model: BoardModel) -> [String] {
        switch model.filter {
        case .some where model.isEditingFilter: return ["type to filter", "↑↓ move", "Enter keep", "Esc clear"]
        case .some where model.readOnly != nil: return ["↑↓/jk move", "/ filter", "Esc clear filter", "? help", "q quit"]
        case .some: return ["↑↓/jk move", "Enter tap", "/ filter", "Esc clear filter"] + Self.undoKeys + Self.zoneKeys + ["? help", "q quit"]
        case nil where model.readOnly != nil: return ["↑↓/jk move", "Tab zone", "/ filter", "? help", "q quit"]
        case nil: return ["↑↓/jk move", "Tab zone", "Enter tap", "+ add", "d delete", "/ filter"] + Self.undoKeys + Self.zoneKeys + ["? help", "q quit"]
        }
    }

    /// Edit, undo and redo: after the keys of every board, shown where there is room (from
    /// 100 columns on a board that is not filtered).
    static let undoKeys = ["e edit", "u/^R undo/redo"]

    /// The zone's rename and moves: after edit, undo and redo, on a screen wider than the
    /// board's column (on a board that is not filtered, r from 115 columns, [ and ] from 130).
    static let zoneKeys = ["r rename zone", "[/] move zone"]

    /// The keys that fit in `width` cells, two spaces apart: the last two ("? help", "q quit")
    /// always, the others in order while they fit, so that help and quit show down to the
    /// smallest board. Cut at the end only when even the last two do not fit.
    static func footer(_ keys: [String], width: Int) -> String {
        let kept = Array(keys.suffix(2))
        var shown: [String] = []
        for key in keys.dropLast(2) {
            let candidate = shown + [key] + kept
            guard DisplayText.width(candidate.joined(separator: "  ")) <= width else { break }
            shown.append(key)
        }
        let text = (shown + kept).joined(separator: "  ")
        return DisplayText.width(text) <= width ? text : DisplayText.truncate(text, toWidth: width).map(\.text).joined()
    }

    /// The most lines a status sentence takes, from the status line up.
    static let maximumStatusLines = 3

    /// A status sentence as the lines it takes in a column this wide: wrapped at spaces, on as
    /// many lines as it needs, up to `maximumStatusLines` and leaving the table three lines on a
    /// screen this high; only a sentence longer than that is cut, at the end of its last line.
    static func statusLines(_ text: String, width: Int, height: Int) -> [String] {
        let lines = DisplayText.wrap(text, toWidth: max(1, width))
        let room = max(1, min(maximumStatusLines, height - 5))
        guard lines.count > room else { return lines }
        let rest = lines[(room - 1)...].joined(separator: " ")
        return Array(lines.prefix(room - 1)) + [DisplayText.truncate(rest, toWidth: width).map(\.text).joined()]
    }

    /// The filter being typed, on the status line; returns where the caret goes.
    private func drawFilterPrompt(_ filter: NameFilter, column: (x: Int, width: Int), into grid: inout Grid) -> (x: Int, y: Int) {
        let y = grid.height - 2
        let x = grid.write("/", x: column.x + 1, y: y, style: theme.title)
        // The end of a long text shows, where the caret is.
        var glyphs = DisplayText.glyphs(filter.text)[...]
        while glyphs.reduce(0, { $0 + $1.width }) > column.x + column.width - x - 2 { glyphs = glyphs.dropFirst() }
        return (grid.write(Array(glyphs), x: x, y: y), y)
    }

    /// A count with its thousands grouped by commas, as the title shows it: "468,560".
    static func grouped(_ count: Int) -> String {
        let digits = String(count.magnitude)
        var grouped = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (count < 0 ? "-" : "") + grouped
    }

    /// "World Cup", a shared board's server (or that it is reconnecting), "read-only" for a
    /// spectator's board, how often a pooled board's updates come, the leader, and on the
    /// right the team count, or the filter and its matches (or that it reads the names).
    private func drawTitle(_ model: BoardModel, count: Int, filterPending: Bool, column: (x: Int, width: Int), into grid: inout Grid) {
        var x = grid.write("World Cup", x: column.x + 1, y: 0, style: theme.title)
        var right = [Span("\(Self.grouped(count)) \(count == 1 ? "team" : "teams")", style: Style(dim: true))]
        // While filtered, the best team shown need not lead: the filter takes the leader's place.
        var leaders = model.leaders
        if let filter = model.filter, filterPending || !filter.text.isEmpty {
            leaders = []
            right = [
                Span("/", style: theme.title),
                Span(glyphs: DisplayText.truncate(filter.text, toWidth: 16), style: Style(bold: true)),
                Span(filterPending ? ": \(Self.readingNames)" : ": \(Self.grouped(count)) \(count == 1 ? "match" : "matches")", style: Style(dim: true)),
            ]
        }
        let rightX = column.x + column.width - right.reduce(0) { $0 + $1.width } - 1
        // What the board is, after the server: never cut, the server gives way to it.
        var notes: [Span] = []
        if model.readOnly != nil { notes.append(Span(" · " + ReadOnlyBoard.titleWord, style: Style(bold: true))) }
        if let interval = model.connection?.pollInterval, model.connection?.isLive == true {
            notes.append(Span(" · " + Self.pooledNote(interval), style: theme.status))
        }
        let notesWidth = notes.reduce(0) { $0 + $1.width }
        if let connection = model.connection {
            let room = rightX - x - 2 - notesWidth
            if connection.isLive {
                x = grid.write(DisplayText.truncate(" · " + connection.server, toWidth: room), x: x, y: 0, style: Style(dim: true))
            } else {
                x = grid.write(DisplayText.truncate(" · reconnecting to " + connection.server + "…", toWidth: room), x: x, y: 0, style: theme.error)
            }
        }
        if x + notesWidth <= rightX - 2 {
            for span in notes { x = grid.write(span.glyphs, x: x, y: 0, style: span.style) }
        }
        if let leader = leaders.first, leader.wins > 0 {
            let before = leaders.count > 1 ? "  Leaders: " : "  Leader: ", after = " (\(leader.wins) \(leader.wins == 1 ? "win" : "wins"))"
            let room = min(Self.leadersWidth, rightX - 2 - x - DisplayText.width(before) - DisplayText.width(after))
            if room >= 4 {
                x = grid.write(before, x: x, y: 0)
                for span in Self.leaderSpans(leaders, room: room) {
                    x = grid.write(span.glyphs, x: x, y: 0, style: span.bold ? Style(bold: true) : .plain)
                }
                x = grid.write(after, x: x, y: 0)
            }
        }
        var column = max(x + 2, rightX)
        for span in right { column = grid.write(span.glyphs, x: column, y: 0, style: span.style) }
    }

    /// The most cells the leaders' names take in the title.
    static let leadersWidth = 40

    /// The fewest cells a leader's name is cut to before the title gives their number instead.
    static let shortestCutName = 4

    /// The leaders' names for the title, in bold, joined by plain words: "Ghana and Japan",
    /// "Cameroon, Ghana and Japan", "…, Japan and others" past `BoardModel.leadersNamed`;
    /// when that does not fit `room`, "Ghana and 2 others", cut to the room if need be.
    static func leaderSpans(_ leaders: [Team], room: Int) -> [(glyphs: [DisplayText.Glyph], bold: Bool)] {
        let named = Array(leaders.prefix(BoardModel.leadersNamed))
        let more = leaders.count > named.count
        var spans: [(String, Bool)] = []
        for (index, team) in named.enumerated() {
            if index > 0 { spans.append((index == named.count - 1 && !more ? " and " : ", ", false)) }
            spans.append((team.teamName, true))
        }
        if more { spans.append((" and others", false)) }
        if spans.reduce(0, { $0 + DisplayText.width($1.0) }) > room, leaders.count > 1 {
            let others = more ? "others" : "\(leaders.count - 1) \(leaders.count == 2 ? "other" : "others")"
            let tail = " and \(others)"
            let nameRoom = room - DisplayText.width(tail)
            // A cut tail ("and 1 oth…") or a name cut to a letter or two reads as nothing: where
            // they do not fit, the title says how many lead.
            guard nameRoom >= shortestCutName else {
                let count = more ? "\(leaders.count)+ teams" : "\(leaders.count) teams"
                return [(DisplayText.truncate(DisplayText.width(count) <= room ? count : String(count.prefix { $0 != " " }), toWidth: room), true)]
            }
            return [(DisplayText.truncate(named[0].teamName, toWidth: nameRoom), true), (DisplayText.truncate(tail, toWidth: .max), false)]
        }
        var left = room
        return spans.map { text, bold in
            let glyphs = DisplayText.truncate(text, toWidth: left)
            left -= glyphs.reduce(0) { $0 + $1.width }
            return (glyphs, bold)
        }
    }

    /// What the title says while the filter waits for the names.
    static let readingNames = "reading names…"

    /// What the title says of a board behind a pooler, whose updates come at each read.
    static func pooledNote(_ interval: Duration) -> String {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let shown = seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
        return "pooler: updates every \(shown)"
    }

    /// What a row says beside the wins while a change of its team is being saved.
    static let savingMark = "saving…"

    /// A team's row: its badge, its name (what the filter found in it highlighted) and its
    /// wins with the `tapsSaving` not yet answered (and `savingMark` while `saving`).
    private func cell(_ team: Team?, filter: NameFilter?, saving: Bool, tapsSaving: Int) -> TableCell {
        guard let team else { return TableCell(title: "…") }
        let badge = badges.spans(of: FlagBadge.forTeam(imageName: team.imageName, teamName: team.teamName)) {
            $0.spans(colors: theme.colors, style: flagStyle)
        }
        // What the filter found in the name, highlighted where it is.
        return TableCell(badge: badge, title: team.teamName, detail: (saving ? Self.savingMark + "  " : "") + "Wins: \(team.wins + tapsSaving)",
                         emphasis: filter?.match(in: team.teamName))
    }
}
