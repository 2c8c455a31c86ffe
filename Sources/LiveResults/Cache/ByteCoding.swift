import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes little-endian integers, arrays and tagged database values to a file, as `ByteReader`
/// reads them, and at last their checksum. Small values are gathered in a buffer; an array is
/// written from where it is, after the padding that aligns it, so that a cache of ten million
/// rows is never copied whole in memory.
struct ByteWriter {
    private let descriptor: Int32
    /// Bytes not yet written.
    private var pending: [UInt8] = []
    private var written = 0
    private var checksum = Checksum.Stream()

    /// A writer to an open file, from its start.
    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// How many bytes were given so far.
    var offset: Int { written + pending.count }

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { pending.append(contentsOf: $0) }
    }

    mutating func append(_ raw: [UInt8]) {
        pending.append(contentsOf: raw)
    }

    mutating func append(utf8 text: String) {
        pending.append(contentsOf: text.utf8)
    }

    /// Zeros up to the next multiple of `ByteReader.arrayAlignment` bytes, then the elements as
    /// they are in memory (Linux targets are little-endian): where a reader finds them in place.
    mutating func appendArray<T: FixedWidthInteger>(_ values: FlatArray<T>) throws {
        try values.withUnsafeBytes { try appendAligned($0) }
    }

    /// The width in bytes, then the elements as `appendArray` writes them.
    mutating func append(packed integers: PackedIntegers) throws {
        append(UInt8(integers.bytesPerElement))
        try integers.withUnsafeBytes { try appendAligned($0) }
    }

    /// The padding that aligns an array, then its bytes, written from where they are.
    private mutating func appendAligned(_ bytes: UnsafeRawBufferPointer) throws {
        pending.append(contentsOf: repeatElement(0, count: (ByteReader.arrayAlignment - offset % ByteReader.arrayAlignment) % ByteReader.arrayAlignment))
        try flush()
        try write(bytes)
    }

    mutating func append(_ value: ColumnValue) {
        switch value {
        case .null:
            append(UInt8(0))
        case .integer(let int):
            append(UInt8(1)); append(int)
        case .real(let double):
            append(UInt8(2)); append(double.bitPattern)
        case .text(let string):
            append(UInt8(3)); append(UInt32(string.utf8.count)); append(utf8: string)
        case .blob(let data):
            append(UInt8(4)); append(UInt32(data.count)); append(Array(data))
        }
    }

    /// Writes the bytes gathered so far.
    mutating func flush() throws {
        let bytes = pending
        pending.removeAll(keepingCapacity: true)
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Writes what is left, then the checksum of every byte written (`Checksum`).
    mutating func finish() throws {
        try flush()
        try withUnsafeBytes(of: checksum.total.littleEndian) { try write($0, summed: false) }
    }

    private mutating func write(_ bytes: UnsafeRawBufferPointer, summed: Bool = true) throws {
        if summed { checksum.add(bytes) }
        var done = 0
        while done < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw POSIXError(POSIXErrorCode(rawValue: count < 0 ? errno : ENOSPC) ?? .EIO) }
            done += count
        }
        written += bytes.count
    }
}

/// Reads what `ByteWriter` wrote, in a mapped file; every read returns nil instead of reading
/// past the end. Arrays are not copied: they are the file's pages (`FlatArray`).
///
/// The bytes end with their checksum (`Checksum.of` all the others): `checksumMatches()`,
/// once everything was read, sums them (where they are, on every processor) and compares.
struct ByteReader {
    /// Arrays start at offsets that are multiples of it (a cache line, and the alignment of
    /// any integer), so that they are used where they are in a mapped file.
    static let arrayAlignment = 64

    private let file: MappedFile
    private let buffer: UnsafeRawBufferPointer
    private var offset = 0

    /// A reader of `file`, at least 8 bytes long, whose last 8 bytes are its checksum.
    init(_ file: MappedFile) {
        precondition(file.size >= 8, "the bytes end with their checksum")
        self.file = file
        buffer = file.bytes
    }

    /// Whether everything but the checksum was read, and the checksum is that of the bytes.
    func checksumMatches() -> Bool {
        guard remaining == 8 else { return false }
        let stored = buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return Checksum.of(UnsafeRawBufferPointer(rebasing: buffer[..<offset])) == UInt64(littleEndian: stored)
    }

    var remaining: Int { buffer.count - offset }

    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= remaining else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
    }

    mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        bytes(MemoryLayout<T>.size).map { T(littleEndian: $0.loadUnaligned(as: T.self)) }
    }

    /// A count, refused when it could not possibly fit in the rest of the file.
    mutating func count() -> Int? {
        guard let value = integer(UInt64.self), value <= UInt64(remaining) else { return nil }
        return Int(value)
    }

    /// `count` elements (after the padding that aligns them), where they are in the file.
    mutating func array<T: FixedWidthInteger>(_ type: T.Type, count: Int) -> FlatArray<T>? {
        let padding = (Self.arrayAlignment - offset % Self.arrayAlignment) % Self.arrayAlignment
        guard count >= 0, padding <= remaining, count <= (remaining - padding) / MemoryLayout<T>.stride else { return nil }
        offset += padding
        defer { offset += count * MemoryLayout<T>.stride }
        return FlatArray(count: count, at: offset, of: file)
    }

    /// What `ByteWriter.append(packed:)` wrote, `count` elements, in the same width.
    mutating func packedIntegers(_ count: Int) -> PackedIntegers? {
        switch integer(UInt8.self) {
        case 1: return array(Int8.self, count: count).map { PackedIntegers(storage: .int8($0)) }
        case 2: return array(Int16.self, count: count).map { PackedIntegers(storage: .int16($0)) }
        case 4: return array(Int32.self, count: count).map { PackedIntegers(storage: .int32($0)) }
        case 8: return array(Int64.self, count: count).map { PackedIntegers(storage: .int64($0)) }
        default: return nil
        }
    }

    mutating func value() -> ColumnValue? {
        switch integer(UInt8.self) {
        case 0: return .null
        case 1: return integer(Int64.self).map { $0.columnValue }
        case 2: return integer(UInt64.self).map { Double(bitPattern: $0).columnValue }
        case 3:
            guard let length = integer(UInt32.self), let utf8 = bytes(Int(length)) else { return nil }
            return String(decoding: utf8, as: UTF8.self).columnValue
        case 4:
            guard let length = integer(UInt32.self), let raw = bytes(Int(length)) else { return nil }
            return Data(raw).columnValue
        default: return nil
        }
    }
}
