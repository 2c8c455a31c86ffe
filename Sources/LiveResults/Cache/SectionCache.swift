import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a section cache was made from. A cache is used only when everything but the
/// position equals the current request and database, and its position is still in the log.
package struct CacheStamp: Codable, Equatable {
    package var table: String
    /// A fingerprint of the database schema's SQL.
    package var schema: String
    package var sortDescriptors: [String]
    package var predicate: String
    package var sectionKeyPath: String?
    package var databaseID: String
    /// The change log position the cached index reflects (at least).
    package var position: Int64

    package init(table: String, schema: String, sortDescriptors: [String], predicate: String, sectionKeyPath: String?, databaseID: String, position: Int64) {
        self.table = table
        self.schema = schema
        self.sortDescriptors = sortDescriptors
        self.predicate = predicate
        self.sectionKeyPath = sectionKeyPath
        self.databaseID = databaseID
        self.position = position
    }

    /// Equal in all but the position.
    package func describesSameResult(as other: CacheStamp) -> Bool {
        var other = other
        other.position = position
        return self == other
    }
}

/// The file that persists a controller's index between launches (persistent tracking).
///
/// Layout: a magic line, the stamp as JSON, the index's arrays in binary, each aligned in the
/// file as in memory (with the table from id to row and where each text starts, which a load
/// would otherwise work out), and a checksum of everything before it (`Checksum`). A load maps
/// the file and uses the arrays where they are (`MappedFile`, `FlatArray`): the system's cached
/// pages of the file, copied only when a change first writes to one. Whatever does not read
/// back exactly (a truncated, corrupt, foreign or older file) is treated as no cache.
package struct SectionCache {
    static let fileExtension = "liveresults-cache"
    private static let magic = Array("LIVERESULTS-CACHE 6\n".utf8)

    let url: URL

    package init(name: String, directory: URL?) {
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
    /// Through a relationship, `sectionOrder` and `sectionRows` (every related row) order and
    /// title its sections.
    package func load(matching expected: CacheStamp, ascending: [Bool], sectionOrder: [Bool]? = nil, sectionRows: [(id: ColumnValue, row: SectionRow)] = [],
              sectionName: (ColumnValue) -> String) -> (stamp: CacheStamp, index: SectionedIndex)? {
        guard let file = MappedFile(path: url.path), file.size > Self.magic.count + 8 else { return nil }
        // The stamp is read before the checksum is checked, so that a cache of another result
        // costs no read of its arrays; it is trusted only once the checksum matches.
        var reader = ByteReader(file)
        guard reader.bytes(Self.magic.count).map(Array.init) == Self.magic,
              let stampLength = reader.integer(UInt32.self), let stampBytes = reader.bytes(Int(stampLength)),
              let stamp = try? JSONDecoder().decode(CacheStamp.self, from: Data(stampBytes)),
              stamp.describesSameResult(as: expected), stamp.position <= expected.position,
              let stored = StoredIndex(&reader, columnCount: ascending.count),
              reader.checksumMatches(),
              let index = stored.index(ascending: ascending, unsectioned: expected.sectionKeyPath == nil, sectionOrder: sectionOrder, sectionRows: sectionRows,
                                       sectionName: sectionName)
        else { return nil }
        return (stamp, index)
    }

    /// An index's arrays as the file holds them (where they lie in it), not yet checked: that
    /// is `index(…)`'s work, once the file's checksum matched.
    private struct StoredIndex {
        enum Column {
            case column(KeyStore.Column)
            case texts(shortLengths: FlatArray<UInt8>, longLengths: [Int: UInt32], starts: FlatArray<UInt32>, utf8: FlatArray<UInt8>)
        }

        var sections: [(value: ColumnValue, count: Int)] = []
        var ids: PackedIntegers
        var denseSlots: FlatArray<Int32>?
        var columns: [Column] = []

        init?(_ reader: inout ByteReader, columnCount expected: Int) {
            guard let rowCount = reader.count(), let sectionCount = reader.count(), let columnCount = reader.count(),
                  columnCount == expected else { return nil }
            for _ in 0..<sectionCount {
                guard let value = reader.value(), let count = reader.count() else { return nil }
                sections.append((value, count))
            }
            guard let ids = reader.packedIntegers(rowCount), let hasDenseSlots = reader.integer(UInt8.self) else { return nil }
            self.ids = ids
            if hasDenseSlots == 1 {
                guard let count = reader.count(), let table = reader.array(Int32.self, count: count) else { return nil }
                denseSlots = table
            }
            for _ in 0..<columnCount {
                guard let kind = reader.integer(UInt8.self) else { return nil }
                switch kind {
                case 0:
                    guard let integers = reader.packedIntegers(rowCount) else { return nil }
                    columns.append(.column(.integers(integers)))
                case 1:
                    guard let shortLengths = reader.array(UInt8.self, count: rowCount), let longCount = reader.count() else { return nil }
                    var longLengths: [Int: UInt32] = [:]
                    for _ in 0..<longCount {
                        guard let slot = reader.integer(UInt64.self), slot < UInt64(rowCount), let length = reader.integer(UInt32.self) else { return nil }
                        longLengths[Int(slot)] = length
                    }
                    guard let starts = reader.array(UInt32.self, count: rowCount),
                          let byteCount = reader.count(), let utf8 = reader.array(UInt8.self, count: byteCount) else { return nil }
                    columns.append(.texts(shortLengths: shortLengths, longLengths: longLengths, starts: starts, utf8: utf8))
                case 2:
                    var values: [ColumnValue] = []
                    values.reserveCapacity(rowCount)
                    for _ in 0..<rowCount {
                        guard let value = reader.value() else { return nil }
                        values.append(value)
                    }
                    columns.append(.column(.values(values)))
                case 3:
                    // Only the first column can stand for the section.
                    guard columns.isEmpty else { return nil }
                    columns.append(.column(.sectionKey(count: rowCount)))
                default:
                    return nil
                }
            }
        }

        /// The index the arrays describe; nil when they do not describe one.
        func index(ascending: [Bool], unsectioned: Bool, sectionOrder: [Bool]?, sectionRows: [(id: ColumnValue, row: SectionRow)],
                   sectionName: (ColumnValue) -> String) -> SectionedIndex? {
            var keyColumns: [KeyStore.Column] = []
            for column in columns {
                switch column {
                case .column(let column):
                    keyColumns.append(column)
                case .texts(let shortLengths, let longLengths, let starts, let utf8):
                    guard let texts = PackedTexts(shortLengths: shortLengths, longLengths: longLengths, starts: starts, utf8: utf8) else { return nil }
                    keyColumns.append(.texts(texts))
                }
            }
            return SectionedIndex(ascending: ascending, unsectioned: unsectioned, sections: sections, ids: ids, columns: keyColumns,
                                  denseSlots: denseSlots, sectionOrder: sectionOrder, sectionRows: sectionRows, sectionName: sectionName)
        }
    }

    // MARK: - Writing

    /// Writes the file for an index, atomically: a temporary file in the same folder, written
    /// and summed as it goes (each array gathered into result order, written, and let go, so
    /// that at most one array is held twice), then renamed over the old file (which a controller
    /// that mapped it keeps reading intact).
    package func save(_ index: SectionedIndex, stamp: CacheStamp) throws {
        let folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        removeAbandonedTemporaries()
        let temporary = folder.appendingPathComponent(temporaryName(process: getpid(), random: UInt64.random(in: 0...UInt64.max)))
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var renamed = false
        defer {
            close(descriptor)
            if !renamed { unlink(temporary.path) }
        }
        var writer = ByteWriter(descriptor: descriptor)
        try Self.write(index, stamp: stamp, to: &writer)
        try writer.finish()
        guard rename(temporary.path, url.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        renamed = true
    }

    /// The name of a temporary file of this cache, hidden in its folder:
    /// `.NAME.liveresults-cache.PROCESS.RANDOM`.
    private func temporaryName(process: pid_t, random: UInt64) -> String {
        ".\(url.lastPathComponent).\(process).\(random)"
    }

    /// Removes the temporary files of this cache that a process killed while saving left
    /// behind (each as large as the cache): those whose process is gone and
    /// that nothing wrote to for a minute. A file of a living process is left alone, even
    /// when its number was reused.
    func removeAbandonedTemporaries() {
        let folder = url.deletingLastPathComponent()
        let prefix = temporaryName(process: 0, random: 0).dropLast("0.0".count)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            let parts = name.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let process = pid_t(parts[0]), process > 0, let random = UInt64(parts[1]),
                  name == temporaryName(process: process, random: random),
                  kill(process, 0) != 0, errno == ESRCH
            else { continue }
            let path = folder.appendingPathComponent(name).path
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, time(nil) - status.st_mtim.tv_sec > 60 else { continue }
            unlink(path)
        }
    }

    /// Everything of the file but its checksum.
    private static func write(_ index: SectionedIndex, stamp: CacheStamp, to writer: inout ByteWriter) throws {
        writer.append(magic)
        let stampBytes = try JSONEncoder().encode(stamp)
        writer.append(UInt32(stampBytes.count))
        writer.append(Array(stampBytes))
        let (sections, slots) = index.exported()
        let columns = index.store.columns
        writer.append(UInt64(slots.count))
        writer.append(UInt64(sections.count))
        writer.append(UInt64(columns.count))
        for section in sections {
            writer.append(section.value)
            writer.append(UInt64(section.count))
        }
        do {
            let ids = index.store.ids.gather(slots)
            try writer.append(packed: ids)
            if case .some(.some(let denseSlots)) = KeyStore.denseSlots(of: ids) {
                writer.append(UInt8(1))
                writer.append(UInt64(denseSlots.count))
                try writer.appendArray(denseSlots)
            } else {
                writer.append(UInt8(0))
            }
        }
        for column in columns {
            switch column.gather(slots) {
            case .integers(let integers):
                writer.append(UInt8(0))
                try writer.append(packed: integers)
            case .texts(let texts):
                writer.append(UInt8(1))
                let (shortLengths, longLengths, starts, utf8) = texts.packed
                try writer.appendArray(shortLengths)
                writer.append(UInt64(longLengths.count))
                for (slot, length) in longLengths.sorted(by: { $0.key < $1.key }) {
                    writer.append(UInt64(slot))
                    writer.append(length)
                }
                try writer.appendArray(starts)
                writer.append(UInt64(utf8.count))
                try writer.appendArray(utf8)
            case .values(let values):
                writer.append(UInt8(2))
                for value in values { writer.append(value) }
            case .sectionKey:
                writer.append(UInt8(3)) // the values are the sections'
            }
        }
    }
}

