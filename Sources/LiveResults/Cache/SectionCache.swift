import Foundation
import GRDB

/// What a section cache was made from. A cache is used only when everything but the
/// position equals the current request and database, and its position is still in the log.
package struct CacheStamp: Codable, Equatable {
    var table: String
    /// A fingerprint of the database schema's SQL.
    var schema: String
    var sortDescriptors: [String]
    var predicate: String
    var sectionKeyPath: String?
    var databaseID: String
    /// The change log position the cached index reflects (at least).
    var position: Int64

    /// Equal in all but the position.
    func describesSameResult(as other: CacheStamp) -> Bool {
        var other = other
        other.position = position
        return self == other
    }
}

/// The file that persists a controller's index between launches (persistent tracking).
///
/// Layout: a magic line, the stamp as JSON, the index's arrays in binary (with the table from
/// id to row, so that loading copies it instead of filling it in the rows' order, which
/// writes all over it), and a checksum of everything before it. Whatever does not read back exactly (a truncated, corrupt, foreign
/// or older file) is treated as no cache.
package struct SectionCache {
    static let fileExtension = "liveresults-cache"
    private static let magic = Array("LIVERESULTS-CACHE 4\n".utf8)

    let url: URL

    init(name: String, directory: URL?) {
        url = (directory ?? Self.defaultDirectory).appendingPathComponent(Self.fileName(for: name))
    }

    /// `$XDG_CACHE_HOME/liveresults`, or `~/.cache/liveresults`.
    static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let home = environment["XDG_CACHE_HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home).appendingPathComponent("liveresults")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/liveresults")
    }

    /// A file name for any cache name: ASCII letters, digits, "-", "_" and inner "." stay;
    /// every other byte is escaped as %XX.
    static func fileName(for name: String) -> String {
        var escaped = ""
        for byte in name.utf8 {
            let isDigit = (0x30...0x39).contains(byte)
            let isLetter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let isMark = byte == 0x2D || byte == 0x5F || (byte == 0x2E && !escaped.isEmpty)
            let kept = isDigit || isLetter || isMark
            escaped += kept ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return escaped + "." + fileExtension
    }

    /// Removes the cache named `name`, or every cache in the directory when it is nil.
    static func delete(named name: String?, directory: URL?) throws {
        let folder = directory ?? defaultDirectory
        let manager = FileManager.default
        let urls: [URL]
        if let name {
            urls = [folder.appendingPathComponent(fileName(for: name))]
        } else {
            let names = (try? manager.contentsOfDirectory(atPath: folder.path)) ?? []
            urls = names.filter { $0.hasSuffix("." + fileExtension) }.map { folder.appendingPathComponent($0) }
        }
        for url in urls where manager.fileExists(atPath: url.path) {
            try manager.removeItem(at: url)
        }
    }

    // MARK: - Reading

    /// The cached index, when the file exists, reads back whole and describes the same result.
    func load(matching expected: CacheStamp, ascending: [Bool], sectionName: (DatabaseValue) -> String) -> (stamp: CacheStamp, index: SectionedIndex)? {
        guard let data = try? Data(contentsOf: url, options: .alwaysMapped) else { return nil }
        return data.withUnsafeBytes { bytes -> (CacheStamp, SectionedIndex)? in
            var reader = ByteReader(bytes)
            guard bytes.count > Self.magic.count + 8,
                  Checksum.of(UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - 8)])) == bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self),
                  reader.bytes(Self.magic.count).map(Array.init) == Self.magic,
                  let stampLength = reader.integer(UInt32.self), let stampBytes = reader.bytes(Int(stampLength)),
                  let stamp = try? JSONDecoder().decode(CacheStamp.self, from: Data(stampBytes)),
                  stamp.describesSameResult(as: expected), stamp.position <= expected.position
            else { return nil }
            guard let index = Self.readIndex(&reader, ascending: ascending, unsectioned: expected.sectionKeyPath == nil, sectionName: sectionName),
                  reader.remaining == 8
            else { return nil }
            return (stamp, index)
        }
    }

    private static func readIndex(_ reader: inout ByteReader, ascending: [Bool], unsectioned: Bool, sectionName: (DatabaseValue) -> String) -> SectionedIndex? {
        guard let rowCount = reader.count(), let sectionCount = reader.count(), let columnCount = reader.count(),
              columnCount == ascending.count else { return nil }
        var sections: [(value: DatabaseValue, count: Int)] = []
        for _ in 0..<sectionCount {
            guard let value = reader.value(), let count = reader.count() else { return nil }
            sections.append((value, count))
        }
        guard let ids = reader.packedIntegers(rowCount), let hasDenseSlots = reader.integer(UInt8.self) else { return nil }
        var denseSlots: [Int32]?
        if hasDenseSlots == 1 {
            guard let count = reader.count(), let table = reader.array(Int32.self, count: count) else { return nil }
            denseSlots = table
        }
        var columns: [KeyStore.Column] = []
        for _ in 0..<columnCount {
            guard let kind = reader.integer(UInt8.self) else { return nil }
            switch kind {
            case 0:
                guard let integers = reader.packedIntegers(rowCount) else { return nil }
                columns.append(.integers(integers))
            case 1:
                guard let lengths = reader.array(UInt32.self, count: rowCount), let byteCount = reader.count(),
                      let utf8 = reader.bytes(byteCount), let texts = PackedTexts(lengths: lengths, utf8: utf8) else { return nil }
                columns.append(.texts(texts))
            case 2:
                var values: [DatabaseValue] = []
                values.reserveCapacity(rowCount)
                for _ in 0..<rowCount {
                    guard let value = reader.value() else { return nil }
                    values.append(value)
                }
                columns.append(.values(values))
            case 3:
                // Only the first column can stand for the section.
                guard columns.isEmpty else { return nil }
                columns.append(.sectionKey(count: rowCount))
            default:
                return nil
            }
        }
        return SectionedIndex(ascending: ascending, unsectioned: unsectioned, sections: sections, ids: ids, columns: columns, denseSlots: denseSlots, sectionName: sectionName)
    }

    // MARK: - Writing

    /// The file's bytes for an index.
    static func encode(_ index: SectionedIndex, stamp: CacheStamp) throws -> Data {
        var writer = ByteWriter()
        writer.append(magic)
        let stampBytes = try JSONEncoder().encode(stamp)
        writer.append(UInt32(stampBytes.count))
        writer.append(Array(stampBytes))
        let (sections, ids, columns) = index.exported()
        writer.append(UInt64(ids.count))
        writer.append(UInt64(sections.count))
        writer.append(UInt64(columns.count))
        for section in sections {
            writer.append(section.value)
            writer.append(UInt64(section.count))
        }
        writer.append(packed: ids)
        if case .some(.some(let denseSlots)) = KeyStore.denseSlots(of: ids) {
            writer.append(UInt8(1))
            writer.append(UInt64(denseSlots.count))
            writer.appendArray(denseSlots)
        } else {
            writer.append(UInt8(0))
        }
        for column in columns {
            switch column {
            case .integers(let integers):
                writer.append(UInt8(0))
                writer.append(packed: integers)
            case .texts(let texts):
                writer.append(UInt8(1))
                let (lengths, utf8) = texts.lengthsAndBytes
                writer.appendArray(lengths)
                writer.append(UInt64(utf8.count))
                writer.append(utf8)
            case .values(let values):
                writer.append(UInt8(2))
                for value in values { writer.append(value) }
            case .sectionKey:
                writer.append(UInt8(3)) // the values are the sections'
            }
        }
        let checksum = writer.bytes.withUnsafeBytes { Checksum.of($0) }
        writer.append(checksum)
        return Data(writer.bytes)
    }

    /// Writes the file atomically (a temporary file renamed over the old one).
    func write(_ data: Data) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url, options: .atomic)
    }
}

// MARK: - Binary form

/// A fast checksum over bytes, 32 at a time in four independent lanes (so that the
/// multiplications overlap: a cache of ten million rows is summed in a fraction of the time
/// one chain of them takes); it detects truncation and corruption.
enum Checksum {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count), 1, 2, 3)
        var offset = 0
        while offset + 32 <= bytes.count {
            lanes.0 = mix(lanes.0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            lanes.1 = mix(lanes.1, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            lanes.2 = mix(lanes.2, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            lanes.3 = mix(lanes.3, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            offset += 32
        }
        var hash = mix(mix(mix(lanes.0, lanes.1), lanes.2), lanes.3)
        while offset + 8 <= bytes.count {
            hash = mix(hash, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        while offset < bytes.count {
            hash = mix(hash, UInt64(bytes[offset]))
            offset += 1
        }
        return hash ^ (hash >> 32)
    }

    @inline(__always)
    private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = (hash ^ word) &* 0x0000_0100_0000_01B3
        return mixed ^ (mixed >> 29)
    }
}

/// Appends little-endian integers, arrays and tagged database values to bytes.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }

    mutating func append(utf8 text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func appendArray<T: FixedWidthInteger>(_ values: [T]) {
        values.withUnsafeBytes { bytes.append(contentsOf: $0) } // Linux targets are little-endian.
    }

    /// The width in bytes, then the elements as they are in memory.
    mutating func append(packed integers: PackedIntegers) {
        append(UInt8(integers.bytesPerElement))
        integers.withUnsafeBytes { bytes.append(contentsOf: $0) } // Linux targets are little-endian.
    }

    mutating func append(_ value: DatabaseValue) {
        switch value.storage {
        case .null:
            append(UInt8(0))
        case .int64(let int):
            append(UInt8(1)); append(int)
        case .double(let double):
            append(UInt8(2)); append(double.bitPattern)
        case .string(let string):
            append(UInt8(3)); append(UInt32(string.utf8.count)); append(utf8: string)
        case .blob(let data):
            append(UInt8(4)); append(UInt32(data.count)); append(Array(data))
        }
    }
}

/// Reads what `ByteWriter` wrote; every read returns nil instead of reading past the end.
struct ByteReader {
    private let buffer: UnsafeRawBufferPointer
    private var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
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

    mutating func array<T: FixedWidthInteger>(_ type: T.Type, count: Int) -> [T]? {
        guard count <= remaining / MemoryLayout<T>.size, let raw = bytes(count * MemoryLayout<T>.size) else { return nil }
        return HugePages.copy(raw, as: T.self)
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

    mutating func value() -> DatabaseValue? {
        switch integer(UInt8.self) {
        case 0: return .null
        case 1: return integer(Int64.self).map { $0.databaseValue }
        case 2: return integer(UInt64.self).map { Double(bitPattern: $0).databaseValue }
        case 3:
            guard let length = integer(UInt32.self), let utf8 = bytes(Int(length)) else { return nil }
            return String(decoding: utf8, as: UTF8.self).databaseValue
        case 4:
            guard let length = integer(UInt32.self), let raw = bytes(Int(length)) else { return nil }
            return Data(raw).databaseValue
        default: return nil
        }
    }
}
