import Foundation
import GRDB

/// Compares values the way SQLite's ORDER BY does with the BINARY collation:
/// NULL < numbers (integers and reals compared by value) < text (UTF-8 bytes) < blobs (bytes).
enum SQLiteOrdering {
    /// Returns a negative number, zero or a positive number as `a` sorts before, with or after `b`.
    static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
        switch (a.storage, b.storage) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case let (.int64(x), .int64(y)): return x < y ? -1 : (x == y ? 0 : 1)
        case let (.double(x), .double(y)): return x < y ? -1 : (x == y ? 0 : 1)
        case let (.int64(x), .double(y)): return compareMixed(x, y)
        case let (.double(x), .int64(y)): return -compareMixed(y, x)
        case (.int64, _), (.double, _): return -1
        case (_, .int64), (_, .double): return 1
        case let (.string(x), .string(y)): return compareBytes(x, y)
        case (.string, .blob): return -1
        case (.blob, .string): return 1
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

    private static func compareBuffers(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
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
        // Equal as doubles: decide exactly where the double is an integer in range.
        guard y >= -9.223372036854775808e18, y < 9.223372036854775808e18 else { return 0 }
        let iy = Int64(y)
        return x < iy ? -1 : (x == iy ? 0 : 1)
    }
}
