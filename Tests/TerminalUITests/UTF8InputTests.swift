import Testing
@testable import TerminalUI

/// The scalars `UTF8Input` makes of some bytes, fed one at a time.
func decoded(_ bytes: [UInt8], into input: inout UTF8Input) -> String {
    var text = ""
    for byte in bytes {
        if let scalar = input.feed(byte) { text.unicodeScalars.append(scalar) }
    }
    return text
}

func decoded(_ bytes: [UInt8]) -> String {
    var input = UTF8Input()
    return decoded(bytes, into: &input)
}

@Suite("UTF8Input: typed bytes to characters")
struct UTF8InputTests {
    @Test("Invalid bytes are dropped alone: A, FF, FE, B gives AB")
    func invalidBytesAlone() {
        #expect(decoded([0x41, 0xFF, 0xFE, 0x42]) == "AB")
    }

    @Test("Valid text of every length comes through", arguments: ["Brazil", "Curaçao", "日本代表", "🇫🇷 Les Bleus 😀", "e\u{301}"])
    func validText(_ text: String) {
        #expect(decoded(Array(text.utf8)) == text)
    }

    @Test("Invalid sequences drop only their own bytes", arguments: [
        ([0xC0, 0x80, 0x41], "A"),                   // overlong NUL
        ([0xE0, 0x80, 0x80, 0x42], "B"),             // overlong
        ([0xED, 0xA0, 0x80, 0x43], "C"),             // a surrogate
        ([0xF4, 0x90, 0x80, 0x80, 0x44], "D"),       // past U+10FFFF
        ([0xF5, 0x45], "E"),                         // never in UTF-8
        ([0x80, 0xBF, 0x46], "F"),                   // stray continuations
        ([0xE6, 0x97, 0x47], "G"),                   // a sequence cut short by ASCII
        ([0xE6, 0x97, 0xE6, 0x97, 0xA5], "日"),      // cut short by the start of another
        ([0x41, 0xC3, 0xA7, 0xFF, 0xF0, 0x9F, 0x98, 0x80, 0x42], "Aç😀B"),
    ] as [([UInt8], String)])
    func invalidSequences(bytes: [UInt8], expected: String) {
        #expect(decoded(bytes) == expected)
    }

    @Test("A character split across reads waits for the rest")
    func splitAcrossReads() {
        var input = UTF8Input()
        let bytes = Array("😀".utf8)
        #expect(decoded(Array(bytes.prefix(2)), into: &input) == "")
        #expect(decoded(Array(bytes.dropFirst(2)), into: &input) == "😀")
    }
}
