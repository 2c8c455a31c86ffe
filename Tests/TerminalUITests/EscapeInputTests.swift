import CNCursesW
import Testing
@testable import TerminalUI

/// What an Esc means, from the bytes curses kept after it (those that came within the escape delay).
@Suite("EscapeInput: Esc, Alt with a key, and sequences curses does not know")
struct EscapeInputTests {
    /// The key an Esc followed by `rest` makes, and what is left for the next reads.
    func read(_ rest: [Int32]) -> (key: Key, left: [Int32]) {
        var queue = rest
        let key = EscapeInput.key(next: { queue.isEmpty ? nil : queue.removeFirst() }, pushBack: { queue.insert($0, at: 0) })
        return (key, queue)
    }

    func bytes(_ text: String) -> [Int32] { text.utf8.map(Int32.init) }

    @Test("Esc alone is Esc")
    func alone() {
        #expect(read([]).key == .escape)
    }

    @Test("Esc Esc is two Escs: the second is read again")
    func twice() {
        let (key, left) = read([27])
        #expect(key == .escape && left == [27])
    }

    @Test("Alt with a key (Esc then the key) is read whole and ignored, never taken for Esc", arguments: ["x", "j", "q", "é", "[", "O"])
    func alt(_ character: String) {
        let (key, left) = read(bytes(character))
        #expect(key == .unknown(27))
        #expect(left.isEmpty)
    }

    @Test("A sequence curses does not know is read to its final byte and ignored; what follows it stays", arguments: ["[1~", "[4~", "[1;5H", "[200~", "OH", "[<0;3;4M"])
    func unknownSequence(_ sequence: String) {
        let (key, left) = read(bytes(sequence + "j"))
        #expect(key == .unknown(27))
        #expect(left == bytes("j"))
    }

    @Test("A resize or a key code right after Esc: Esc, then the resize; Alt with a special key is ignored")
    func keyCodes() {
        #expect(read([KEY_RESIZE]).key == .escape)
        #expect(read([KEY_RESIZE]).left == [KEY_RESIZE])
        #expect(read([KEY_UP]).key == .unknown(27))
    }
}
