/// Finds where JSON text stops being valid, so that an error can name a line and column.
///
/// Foundation's `JSONDecoder` says only that data "was not valid JSON", and traps on some
/// malformed input. This scanner runs before the decoder: it walks the text once, without
/// building anything, and stops at the first byte that cannot continue a JSON5 document (the
/// dialect the seed is decoded with: comments, trailing commas, unquoted keys, single quotes,
/// hex numbers). It keeps its nesting on a heap stack, so deep nesting cannot overflow the
/// call stack.
struct JSONSyntax {
    /// Where the text goes wrong and what was expected there.
    struct Problem: Equatable, Sendable {
        /// The byte offset of the first byte that does not fit.
        var offset: Int
        /// The line, from 1.
        var line: Int
        /// The column in characters (Unicode scalars), from 1.
        var column: Int
        /// What the text should have had there, such as "“,” or “]”" or "a value".
        var expected: String
    }

    private enum State { case value, afterValue, key, colon, end }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The first place where `bytes` is not JSON5, or nil if it is.
    static func firstProblem(in bytes: [UInt8]) -> Problem? {
        var scanner = JSONSyntax(bytes)
        guard let (offset, expected) = scanner.scan() else { return nil }
        let (line, column) = position(of: offset, in: bytes)
        return Problem(offset: offset, line: line, column: column, expected: expected)
    }

    /// The first byte that is not part of well-formed UTF-8, or nil if there is none.
    static func invalidUTF8(in bytes: [UInt8]) -> Problem? {
        var scanner = JSONSyntax(bytes)
        while scanner.index < bytes.count {
            guard let (offset, expected) = scanner.skipScalar() else { continue }
            let (line, column) = position(of: offset, in: bytes)
            return Problem(offset: offset, line: line, column: column, expected: expected)
        }
        return nil
    }

    /// The line and column (both from 1, columns in Unicode scalars) of a byte offset.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes[..<min(offset, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // not a UTF-8 continuation byte
                column += 1
            }
        }
        return (line, column)
    }

    /// Walks the document; returns the offset of the first problem and what was expected.
    private mutating func scan() -> (Int, String)? {
        var containers: [UInt8] = []  // "[" or "{", innermost last
        var state = State.value
        while true {
            if let problem = skipSpaceAndComments() { return problem }
            let closing: UInt8? = containers.last.map { $0 == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}") }
            guard index < bytes.count else {
                switch state {
                case .end: return nil
                case .value: return (index, "a value")
                case .key: return (index, "a field name")
                case .colon: return (index, "“:”")
                case .afterValue: return (index, closing == UInt8(ascii: "]") ? "“,” or “]”" : "“,” or “}”")
                }
            }
            let byte = bytes[index]
            switch state {
            case .end:
                return (index, "nothing after the end of the document")
            case .colon:
                guard byte == UInt8(ascii: ":") else { return (index, "“:”") }
                index += 1
                state = .value
                continue
            case .afterValue:
                if byte == UInt8(ascii: ",") {
                    index += 1
                    state = containers.last == UInt8(ascii: "[") ? .value : .key
                    continue
                }
                guard byte == closing else { return (index, closing == UInt8(ascii: "]") ? "“,” or “]”" : "“,” or “}”") }
            case .key:
                if byte != closing {
                    if let problem = scanKey() { return problem }
                    state = .colon
                    continue
                }
            case .value:
                if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    containers.append(byte)
                    index += 1
                    state = byte == UInt8(ascii: "[") ? .value : .key
                    continue
                }
                // A trailing comma: "]" may follow "[" or ",".
                if byte != closing || closing != UInt8(ascii: "]") {
                    if let problem = scanScalar() { return problem }
                    state = containers.isEmpty ? .end : .afterValue
                    continue
                }
            }
            // `byte` closes the innermost container.
            containers.removeLast()
            index += 1
            state = containers.isEmpty ? .end : .afterValue
        }
    }

    // MARK: Tokens

    private mutating func scanKey() -> (Int, String)? {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { return scanString() }
        guard Self.isIdentifierStart(byte) else { return (index, "a field name") }
        while index < bytes.count, Self.isIdentifierPart(bytes[index]) { index += 1 }
        return nil
    }

    private mutating func scanScalar() -> (Int, String)? {
        let byte = bytes[index]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { return scanString() }
        if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || Self.isDigit(byte) {
            return scanNumber()
        }
        let start = index
        while index < bytes.count, Self.isIdentifierPart(bytes[index]) { index += 1 }
        switch String(decoding: bytes[start..<index], as: UTF8.self) {
        case "true", "false", "null", "Infinity", "NaN": return nil
        default: return (start, "a value")
        }
    }

    private mutating func scanNumber() -> (Int, String)? {
        let start = index
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        for word in ["Infinity", "NaN"] where bytes[index...].starts(with: word.utf8) {
            index += word.utf8.count
            return nil
        }
        if bytes[index...].starts(with: "0x".utf8) || bytes[index...].starts(with: "0X".utf8) {
            index += 2
            return skip(Self.isHexDigit) > 0 ? nil : (index, "a hexadecimal digit")
        }
        let whole = skip(Self.isDigit)
        var fraction = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            fraction = skip(Self.isDigit)
        }
        guard whole + fraction > 0 else { return (start, "a value") }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            guard skip(Self.isDigit) > 0 else { return (index, "the digits of an exponent") }
        }
        return nil
    }

    private mutating func scanString() -> (Int, String)? {
        let quote = bytes[index]
        let closing = quote == UInt8(ascii: "\"") ? "“\"”" : "“'”"
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case quote:
                index += 1
                return nil
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "u"):
                    index += 1
                    guard skip(Self.isHexDigit, limit: 4) == 4 else { return (index, "four hexadecimal digits") }
                case UInt8(ascii: "x"):
                    index += 1
                    guard skip(Self.isHexDigit, limit: 2) == 2 else { return (index, "two hexadecimal digits") }
                case UInt8(ascii: "1")...UInt8(ascii: "9"):
                    return (index, "an escape other than a digit")
                case UInt8(ascii: "\r"):
                    index += 1
                    if index < bytes.count, bytes[index] == UInt8(ascii: "\n") { index += 1 }
                case UInt8(ascii: "\n"):
                    index += 1
                default:
                    if let problem = skipScalar() { return problem }
                }
            case 0..<0x20:
                return (index, closing + " before the end of the line")
            default:
                if let problem = skipScalar() { return problem }
            }
        }
        return (index, closing + " to end the text")
    }

    // MARK: Space

    private mutating func skipSpaceAndComments() -> (Int, String)? {
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20:
                index += 1
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                let start = index
                index += 2
                while index < bytes.count, !bytes[index...].starts(with: "*/".utf8) { index += 1 }
                guard index < bytes.count else { return (start, "“*/” to end this comment") }
                index += 2
            default:
                guard let space = Self.wideSpaces.first(where: { bytes[index...].starts(with: $0) }) else { return nil }
                index += space.count
            }
        }
        return nil
    }

    /// U+00A0, U+FEFF, U+2028 and U+2029 in UTF-8: white space in JSON5.
    private static let wideSpaces: [[UInt8]] = [[0xC2, 0xA0], [0xEF, 0xBB, 0xBF], [0xE2, 0x80, 0xA8], [0xE2, 0x80, 0xA9]]

    // MARK: Bytes

    /// Skips one well-formed UTF-8 scalar.
    private mutating func skipScalar() -> (Int, String)? {
        let lead = bytes[index]
        let length: Int
        var lowest: UInt8 = 0x80
        var highest: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: length = 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; highest = 0x9F  // no surrogates
        case 0xF0: length = 4; lowest = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; highest = 0x8F
        default: return (index, "valid UTF-8")
        }
        for offset in 1..<length {
            let position = index + offset
            guard position < bytes.count else { return (index, "valid UTF-8") }
            let byte = bytes[position]
            let range = offset == 1 ? lowest...highest : 0x80...0xBF
            guard range.contains(byte) else { return (index, "valid UTF-8") }
        }
        index += length
        return nil
    }

    /// Skips bytes while `accepts` holds (at most `limit` of them); returns how many.
    private mutating func skip(_ accepts: (UInt8) -> Bool, limit: Int = .max) -> Int {
        let start = index
        while index < bytes.count, index - start < limit, accepts(bytes[index]) { index += 1 }
        return index - start
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (0x61...0x66).contains(byte | 0x20) }
    private static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte | 0x20) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
    }
    private static func isIdentifierPart(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) }
}
