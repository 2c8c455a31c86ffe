@testable import WorldCupApp
import Foundation
import GRDB
import LiveResults
import LiveResultsSQLite
import TerminalUI
import TestSupport
import Testing
import WorldCup
import WorldCupSQLite

@Suite("SQLiteTeamStore: the / filter")
struct FilterTests {
    /// The names the screen shows, in order.
    func shownNames(_ fixture: ScreenFixture) throws -> [String] {
        try fixture.screen.controller.fetchedObjects.map(\.teamName)
    }

    @Test("The title groups a count's thousands: 468,560 matches, 1,000,000 teams")
    func countsGroupThousands() {
        let shown = [0, 7, 999, 1_000, 32_768, 468_560, 1_000_000, 12_345_678].map(BoardView.grouped)
        #expect(shown == ["0", "7", "999", "1,000", "32,768", "468,560", "1,000,000", "12,345,678"])
    }

    @Test("Typing filters as you go; the title shows the filter and the match count")
    func filtersAsYouType() throws {
        let fixture = try ScreenFixture()
        fixture.press(.character("/"))
        var frame = fixture.screen.render(width: 80, height: 24)
        #expect(lines(frame.grid)[22] == " /")
        #expect(frame.caret.map { [$0.x, $0.y] } == [2, 22])
        #expect(lines(frame.grid)[23].hasPrefix(" type to filter"))

        fixture.type("an")
        #expect(try shownNames(fixture) == ["Ghana", "Iran", "Japan", "Bosnia and Herzegovina", "England", "France", "Germany", "Netherlands", "Switzerland"])
        #expect(lines(fixture.render())[0].hasSuffix("/an: 9 matches"))

        // "k" and "o" are text now, not keys: the cursor does not move, the filter narrows.
        fixture.press(.backspace)
        fixture.type("ko")
        frame = fixture.screen.render(width: 80, height: 24)
        let text = lines(frame.grid)
        #expect(text[0].hasPrefix(" World Cup  ") && text[0].hasSuffix("/ako: 0 matches"))
        fixture.press(.backspace)
        fixture.press(.backspace)
        fixture.press(.backspace)
        fixture.type("KO")
        frame = fixture.screen.render(width: 80, height: 24)
        #expect(lines(frame.grid)[0].hasSuffix("/KO: 1 match"))
        #expect(headers(frame.grid) == ["Asia"])
        #expect(lines(frame.grid)[2] == "▶ [KOR] Korea                                                       Wins: 0")
        #expect(lines(frame.grid)[22] == " /KO")
        #expect(frame.caret.map { [$0.x, $0.y] } == [4, 22])
        #expect(fixture.screen.selectedTeam?.teamName == "Korea")
        #expect(drawingProblems(frame.grid).isEmpty)
    }

    @Test("On a large board the names are read in the background: the prompt takes keys at once, and the filter typed meanwhile applies when they are in")
    func namesReadInTheBackground() throws {
        let fixture = try ScreenFixture()
        fixture.screen.backgroundFilterMinimumTeams = 0 // as on a board of a million teams
        fixture.press(.tab)
        fixture.press(.down, times: 2)
        #expect(fixture.screen.selectedTeam?.teamName == "Japan")
        fixture.press(.character("/"))
        fixture.type("ap")
        var grid = fixture.render()
        #expect(lines(grid)[22] == " /ap", "the prompt shows what was typed, names read or not")
        if fixture.screen.controller.isFilterPending {
            #expect(lines(grid)[0].hasSuffix("/ap: reading names…"))
            #expect(fixture.screen.controller.numberOfObjects == 32, "the whole board until the names are in")
        }
        // The names come in the background; the app's loop is woken and processes changes.
        let end = Date().addingTimeInterval(10)
        while fixture.screen.controller.isFilterPending {
            guard Date() < end else { throw FilterWaitFailure() }
            usleep(1000)
            fixture.screen.processChanges()
        }
        #expect(try shownNames(fixture) == ["Japan"])
        #expect(fixture.screen.selectedTeam?.teamName == "Japan")
        grid = fixture.render()
        #expect(lines(grid)[0].hasSuffix("/ap: 1 match"))
        // From now on each key answers at once, in memory.
        fixture.press(.backspace)
        fixture.type("n")
        #expect(try shownNames(fixture) == ["Ghana", "Iran", "Japan", "Bosnia and Herzegovina", "England", "France", "Germany", "Netherlands", "Switzerland"])
        #expect(!fixture.screen.controller.isFilterPending)
        fixture.press(.escape)
        #expect(fixture.screen.controller.numberOfObjects == 32)
    }

    @Test("While the names are read the title says so, for the empty filter too; then it shows the matches")
    func titleWhileReadingNames() {
        var board = PureBoard()
        board.data.isFilterPending = true
        board.press(.character("/"))
        #expect(lines(board.render().grid)[0].hasSuffix("/: reading names…"))
        board.press(.character("a"))
        #expect(lines(board.render().grid)[0].hasSuffix("/a: reading names…"))
        board.data.isFilterPending = false
        #expect(lines(board.render().grid)[0].hasSuffix("/a: 32 matches"))
    }

    struct FilterWaitFailure: Error, CustomStringConvertible {
        var description: String { "The names the filter reads in the background were not in within 10 s." }
    }

    @Test("Keys that arrive together give what they give one by one; keys after the text see the filtered table")
    func batchedKeys() throws {
        let one = try ScreenFixture()
        for key: Key in [.character("/"), .character("a"), .character("n"), .enter, .down, .down] { one.press(key) }
        let together = try ScreenFixture()
        together.screen.handle([.character("/"), .character("a"), .character("n"), .enter, .down, .down])
        #expect(lines(together.render()) == lines(one.render()))
        #expect(together.screen.selectedTeam?.teamName == "Japan")
        #expect(try shownNames(together).count == 9)
        // Backspace and a new letter in one batch: only the final text counts.
        together.screen.handle([.character("/"), .backspace, .backspace, .character("k")])
        #expect(lines(together.render())[0].hasSuffix("/k: 1 match"))
    }

    @Test("Matching ignores case and Unicode normalisation")
    func foldsCaseAndNormalisation() throws {
        let fixture = try ScreenFixture()
        try fixture.scoreboard.add(name: "Cura\u{E7}ao", zone: "North, Central America & Caribbean")  // precomposed ç
        fixture.screen.processChanges()
        fixture.press(.character("/"))
        fixture.type("URAC\u{327}")  // C + combining cedilla, upper case
        #expect(try shownNames(fixture) == ["Cura\u{E7}ao"])
        #expect(lines(fixture.render())[0].hasSuffix(": 1 match"))
    }

    @Test("The text is a bound argument: quotes and LIKE wildcards match only themselves")
    func boundArgument() throws {
        let fixture = try ScreenFixture()
        try fixture.scoreboard.add(name: "100% d'Or", zone: "Europe")
        fixture.screen.processChanges()
        for text in ["%", "_", "'", "d'o", "\""] {
            fixture.press(.escape)
            fixture.press(.character("/"))
            fixture.type(text)
            let expected = text == "\"" || text == "_" ? [] : ["100% d'Or"]
            #expect(try shownNames(fixture) == expected, "filter \(text)")
            #expect(fixture.screen.status == nil, "no error for \(text)")
        }
    }

    @Test("Enter keeps the filter and gives the keys back; / edits it again; Esc clears it, then quits")
    func enterKeepsEscClears() throws {
        let fixture = try ScreenFixture()
        fixture.press(.character("/"))
        fixture.type("an")
        fixture.press(.enter)
        #expect(fixture.screen.filter != nil && !fixture.screen.isEditingFilter)
        #expect(try fixture.scoreboard.teams().allSatisfy { $0.wins == 0 }, "Enter ends typing; it does not tap")
        var frame = fixture.screen.render(width: 80, height: 24)
        #expect(frame.caret == nil)
        #expect(lines(frame.grid)[0].hasSuffix("/an: 9 matches"))
        #expect(lines(frame.grid)[23].hasPrefix(" ↑↓/jk move  Enter tap  / filter  Esc clear filter"))
        fixture.press(.character("j"))
        #expect(fixture.screen.selectedTeam?.teamName == "Iran")
        fixture.press(.character("/"))
        fixture.press(.control("u"))
        fixture.type("ap")
        #expect(try shownNames(fixture) == ["Japan"])
        fixture.press(.enter)

        fixture.press(.escape)
        #expect(fixture.screen.filter == nil)
        #expect(!fixture.screen.wantsToQuit)
        frame = fixture.screen.render(width: 80, height: 24)
        #expect(lines(frame.grid)[0].hasSuffix("32 teams"))
        #expect(fixture.screen.selectedTeam?.teamName == "Japan", "the cursor stays on its team")
        fixture.press(.escape)
        #expect(!fixture.screen.wantsToQuit, "a second Esc has nothing to clear, and Esc never quits")
    }

    @Test("Esc while typing clears the filter; an empty filter kept with Enter is no filter")
    func escWhileTyping() throws {
        let fixture = try ScreenFixture()
        fixture.press(.character("/"))
        fixture.type("ko")
        fixture.press(.escape)
        #expect(fixture.screen.filter == nil)
        #expect(fixture.screen.controller.numberOfObjects == 32)
        #expect(!fixture.screen.wantsToQuit)
        fixture.press(.character("/"))
        fixture.press(.enter)
        #expect(fixture.screen.filter == nil)
    }

    @Test("No match: a friendly line; the cursor comes back to its team when the filter widens")
    func emptyResult() throws {
        let fixture = try ScreenFixture()
        fixture.press(.tab)
        fixture.press(.down, times: 2)
        #expect(fixture.screen.selectedTeam?.teamName == "Japan")
        fixture.press(.character("/"))
        fixture.type("ap")
        #expect(fixture.screen.selectedTeam?.teamName == "Japan")
        fixture.type("x")
        #expect(fixture.screen.selectedTeam == nil)
        let grid = fixture.render()
        #expect(lines(grid)[0].hasSuffix("/apx: 0 matches"))
        #expect(lines(grid)[2] == "  No team matches “apx”: Esc clears the filter.")
        #expect(headers(grid).isEmpty)
        fixture.press(.backspace)
        #expect(fixture.screen.selectedTeam?.teamName == "Japan")
        fixture.press(.control("u"))
        #expect(fixture.screen.controller.numberOfObjects == 32)
        #expect(fixture.screen.selectedTeam?.teamName == "Japan")
    }

    @Test("A team the filter hid gets the cursor back when it shows again, unless the cursor moved meanwhile")
    func hiddenTeamGetsTheCursorBack() throws {
        let fixture = try ScreenFixture()
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")
        fixture.press(.character("/"))
        fixture.type("z")
        #expect(try shownNames(fixture) == ["Bosnia and Herzegovina", "Switzerland", "Brazil"])
        #expect(fixture.screen.selectedTeam?.teamName == "Bosnia and Herzegovina")
        fixture.press(.backspace)
        #expect(fixture.screen.selectedTeam?.teamName == "Algeria")

        fixture.type("z")
        fixture.press(.down)  // arrows move the cursor while typing
        #expect(fixture.screen.selectedTeam?.teamName == "Switzerland")
        fixture.press(.backspace)
        #expect(fixture.screen.selectedTeam?.teamName == "Switzerland")
    }

    @Test("Live changes keep working while filtered: taps move rows, adds and deletes that match show")
    func liveChanges() throws {
        let fixture = try ScreenFixture()
        fixture.press(.character("/"))
        fixture.type("an")
        fixture.press(.enter)
        _ = fixture.render()
        fixture.press(.tab)
        fixture.press(.down)
        #expect(fixture.screen.selectedTeam?.teamName == "Japan")
        fixture.press(.enter)
        #expect(try shownNames(fixture).prefix(3) == ["Ghana", "Japan", "Iran"])
        #expect(fixture.screen.selectedTeam?.teamName == "Japan")
        #expect(fixture.screen.selectedTeam?.wins == 1)

        try fixture.scoreboard.tap(named: "Germany")  // from elsewhere, matches
        try fixture.scoreboard.tap(named: "Brazil")  // from elsewhere, hidden
        try fixture.scoreboard.add(name: "Atlantis", zone: "Oceania")  // matches "an"
        try fixture.scoreboard.add(name: "Lemuria", zone: "Oceania")  // does not
        fixture.screen.processChanges()
        #expect(try shownNames(fixture) == ["Ghana", "Japan", "Iran", "Germany", "Bosnia and Herzegovina", "England", "France", "Netherlands", "Switzerland", "Atlantis"])
        let grid = fixture.render()
        #expect(lines(grid)[0].hasSuffix("/an: 10 matches"))
        #expect(headers(grid) == ["Africa", "Asia", "Europe", "Oceania"])
        #expect(fixture.screen.table.sectionIndexTitles == ["Af", "As", "Eu", "Oc"])
        #expect(fixture.screen.selectedTeam?.teamName == "Japan")

        try fixture.scoreboard.delete(named: "Atlantis")
        fixture.screen.processChanges()
        #expect(fixture.screen.table.sectionIndexTitles == ["Af", "As", "Eu"])
        #expect(lines(fixture.render())[0].hasSuffix("/an: 9 matches"))
    }

    @Test("The filter works in memory: the request stays; another program's renames start and stop matches")
    func inMemoryWithRenamesFromElsewhere() throws {
        let fixture = try ScreenFixture()
        fixture.press(.character("/"))
        #expect(fixture.screen.controller.filter == .contains("", inColumn: NameFilter.column), "/ reads the names before the first key")
        fixture.type("AN")
        #expect(fixture.screen.controller.fetchRequest.predicate == nil)
        #expect(fixture.screen.controller.filter == .contains("an", inColumn: NameFilter.column))
        let other = try DatabaseQueue(path: fixture.databaseURL.path)
        func rename(_ old: String, _ new: String) throws {
            try other.write { db in
                try db.execute(sql: "UPDATE team SET teamName = ?, nameKey = ?, nameSortKey = ? WHERE teamName = ?", arguments: [new, Team.nameKey(new), Team.nameSortKey(new), old])
            }
        }
        try rename("Ghana", "Gold Coast")    // stops matching
        try rename("Brazil", "Brasil Ana")   // starts matching
        try rename("Iran", "Persia and Iran")  // still matches, moves in its zone
        try fixture.screen.controller.refresh()
        #expect(try shownNames(fixture) == ["Japan", "Persia and Iran", "Bosnia and Herzegovina", "England", "France", "Germany", "Netherlands", "Switzerland", "Brasil Ana"])
        #expect(lines(fixture.render())[0].hasSuffix("/AN: 9 matches"))
        fixture.press(.escape)
        #expect(fixture.screen.controller.filter == nil)
        #expect(fixture.screen.controller.numberOfObjects == 32)
    }

    @Test("A team added while filtered that the filter hides says so")
    func addHidden() throws {
        let fixture = try ScreenFixture()
        fixture.press(.character("/"))
        fixture.type("an")
        fixture.press(.enter)
        fixture.press(.character("+"))
        fixture.type("Lemuria")
        fixture.press(.enter)
        #expect(fixture.screen.status?.text == "Added Lemuria to Africa; the filter hides it.")
    }
}
