import WorldCup

/// The first 100 bytes of a SQLite database file, read without SQLite (the layout is
/// SQLite's file format, "The Database Header"). Enough to refuse a file that is not a
/// database or whose header is damaged, and to compare the page count with the file's size,
/// without reading the rest of the file.
struct DatabaseHeader: Equatable {
    /// How many bytes the header takes.
    static let size = 100
    /// The first bytes of every SQLite 3 database file.
    static let magic = Array("SQLite format 3\0".utf8)

    /// Bytes per page: a power of two from 512 to 65,536.
    var pageSize: Int
    /// 1 for a rollback journal, 2 for WAL.
    var writeVersion: UInt8
    var readVersion: UInt8
    /// Bytes at the end of each page that SQLite does not use.
    var reservedBytes: UInt8
    /// Bytes 21 to 23: the payload fractions, always 64, 32 and 32.
    var payloadFractions: [UInt8]
    var changeCounter: UInt32
    /// The size of the database in pages, as of the last commit that changed page 1.
    var pageCount: UInt32
    var versionValidFor: UInt32
    var schemaFormat: UInt32
    var textEncoding: UInt32

    /// Reads a header; nil when the bytes do not start with SQLite's magic string.
    /// A header cut short (a file under 100 bytes) is read as far as it goes, with zeros after.
    init?(_ bytes: [UInt8]) {
        guard bytes.starts(with: Self.magic) else { return nil }
        let padded = bytes + [UInt8](repeating: 0, count: max(0, Self.size - bytes.count))
        func u16(_ offset: Int) -> Int { Int(padded[offset]) << 8 | Int(padded[offset + 1]) }
        func u32(_ offset: Int) -> UInt32 { padded[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        let rawPageSize = u16(16)
        pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        writeVersion = padded[18]
        readVersion = padded[19]
        reservedBytes = padded[20]
        payloadFractions = Array(padded[21...23])
        changeCounter = u32(24)
        pageCount = u32(28)
        versionValidFor = u32(92)
        schemaFormat = u32(44)
        textEncoding = u32(56)
    }

    /// What is wrong with the header, as the end of a sentence; nil when nothing is.
    /// (These are the fields SQLite itself refuses a file for.)
    var problem: String? {
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else { return "its header gives an impossible page size, \(pageSize)" }
        guard (1...2).contains(writeVersion), (1...2).contains(readVersion) else { return "its header gives an unknown file format" }
        guard pageSize - Int(reservedBytes) >= 480 else { return "its header reserves too much of each page" }
        guard payloadFractions == [64, 32, 32] else { return "its header is damaged" }
        guard schemaFormat <= 4, textEncoding <= 3 else { return "its header is damaged" }
        return nil
    }

    /// Whether the file uses a write-ahead log (WAL), as every database of this program does.
    var isWAL: Bool { writeVersion == 2 && readVersion == 2 }

    /// The page count, when the header's own rule says it can be trusted (SQLite 3.7.0 and
    /// later always keep it so).
    var trustedPageCount: Int? {
        pageCount > 0 && changeCounter == versionValidFor ? Int(pageCount) : nil
    }
}
