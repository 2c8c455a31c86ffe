import Foundation

/// Compares values the way SQLite's ORDER BY does with the BINARY collation:
/// NULL < numbers (integers and reals compared by value) < text (UTF-8 bytes) < blobs (bytes).
package enum SQLiteOrdering {
    /// Returns a negative number, zero or a positive number as `a` sorts before, with or after `b`.
    package static func compare(_ a: ColumnValue, _ b: ColumnValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case let (.integer(x), .integer(y)): return x < y ? -1 : (x == y ? 0 : 1)
        case let (.real(x), .real(y)): return x < y ? -1 : (x == y ? 0 : 1)
        case let (.integer(x), .real(y)): return compareMixed(x, y)
        case let (.real(x), .integer(y)): return -compareMixed(y, x)
        case (.integer, _), (.real, _): return -1
        case (_, .integer), (_, .real): return 1
        case let (.text(x), .text(y)): return compareBytes(x, y)
        case (.text, .blob): return -1
        case (.blob, .text): return 1
        case let (.blob(x), .blob(y)): return compareBytes(x, y)
        }
    }

    /// Byte-wise comparison of the UTF-8 encodings, which is SQLite's BINARY collation.
    /// Swift's `<` on String would treat canonically equivalent strings as equal.
    static func compareBytes(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in compareBuffers(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) } }
    }

    static func compareBytes(_ a: Data, _ b: Data) -> Int {
        a.withUnsafeBytes { x in b.withUnsafeBytes { y in compareBuffers(x, y) } }
    }

    /// Compares bytes as SQLite's BINARY collation does: memcmp, then the shorter first.
    static func compareBuffers(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let common = min(x.count, y.count)
        if common > 0, let px = x.baseAddress, let py = y.baseAddress {
            let result = memcmp(px, py, common)
            if result != 0 { return result < 0 ? -1 : 1 }
        }
        return x.count < y.count ? -1 : (x.count == y.count ? 0 : 1)
    }

    private static func compareMixed(_ x: Int64, _ y: Double) -> Int {
        if y.isNaN { return 1 }
        let dx = Double(x)
        if dx < y { return -1 }
        if dx > y { return 1 }
        // Equal as doubles: decide exactly. Doubles at or beyond ±2^63 lie outside Int64.
        if y >= 9.223372036854775808e18 { return -1 }
        if y < -9.223372036854775808e18 { return 1 }
        let iy = Int64(y)
        return x < iy ? -1 : (x == iy ? 0 : 1)
    }
}
