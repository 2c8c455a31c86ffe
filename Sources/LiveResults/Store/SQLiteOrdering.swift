import Foundation
import GRDB

/// Compares values the way SQLite's ORDER BY does with the BINARY collation:
/// NULL < numbers (integers and reals compared by value) < text (UTF-8 bytes) < blobs (bytes).
package enum SQLiteOrdering {
    /// Returns a negative number, zero or a positive number as `a` sorts before, with or after `b`.
    package static func compare(_ a: DatabaseValue, _ b: DatabaseValue) -> Int {
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

/// A database value that is equal to another exactly when SQLite's BINARY comparison says so:
/// canonically equivalent strings with different bytes are different values, 1 and 1.0 are one.
/// (DatabaseValue's own `==` compares strings the way Swift does, canonically.)
struct ExactValue: Hashable {
    let value: DatabaseValue

    init(_ value: DatabaseValue) {
        self.value = value
    }

    static func == (a: ExactValue, b: ExactValue) -> Bool {
        SQLiteOrdering.compare(a.value, b.value) == 0
    }

    func hash(into hasher: inout Hasher) {
        switch value.storage {
        case .null:
            hasher.combine(0)
        case .int64(let int):
            hasher.combine(Double(int))
        case .double(let double):
            hasher.combine(double)
        case .string(var string):
            hasher.combine(2)
            string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .blob(let data):
            hasher.combine(3)
            data.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}
