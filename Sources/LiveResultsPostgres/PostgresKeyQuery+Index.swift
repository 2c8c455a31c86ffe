import Foundation
import LiveResults
import PostgresNIO

/// A fetch streamed into the index: the rows are appended as they arrive, each row's text
/// read from postgres-nio's buffer in place.
extension PostgresKeyQuery {
    /// Every matching row, in result order, straight into an index as the rows arrive, as
    /// SQLite's fetch builds it: text keys stored from their bytes (postgres-nio reads every
    /// column in binary form, which for text is its UTF-8), a row of the previous row's
    /// section recognised from the section cell's bytes, ids mapped once at the end, and no
    /// count first (the index grows as it goes).
    /// Joined, `sections` are every related row (`PostgresRelatedQuery.relatedRows`), which the
    /// index holds before the first row arrives.
    package func fetchIndex(_ connection: PostgresConnection, statements: Statements, sections: [(id: ColumnValue, row: SectionRow)] = [],
                            logger: Logger) throws -> SectionedIndex {
        let builder = IndexBuilder(IndexAppender(self))
        for (id, row) in sections { builder.appender.index.setSectionRow(row, for: id) }
        let query = try statements.selectAll()
        try Self.running {
            // The rows are iterated as they arrive, by a task on the connection's event loop;
            // this thread waits.
            try connection.runWithinDeadline {
                for try await row in try await connection.query(query, logger: logger) {
                    try builder.appender.append(row)
                }
            }
        }
        builder.appender.index.mapFetchedIDs()
        builder.appender.index.checkInvariantsInDebug()
        return builder.appender.index
    }

    /// The index being built by rows arriving on an event loop, while the caller waits.
    final class IndexBuilder: @unchecked Sendable {
        /// One property, so that a row costs one exclusivity check of the class's state.
        var appender: IndexAppender
        init(_ appender: IndexAppender) { self.appender = appender }
    }

    /// Appends the rows of `Statements.selection()` (the id, the sort values, the section
    /// value) to an index, in result order.
    struct IndexAppender {
        var index: SectionedIndex
        private let sortCount: Int
        private let sectioned: Bool
        /// The first sort column is the section column (the usual case): its value is the
        /// section's, so it is neither decoded again nor compared.
        private let firstValueIsSection: Bool
        /// The section cell's bytes of the last row that began a section (nil: NULL), once one did.
        private var lastSection: [UInt8]??
        /// One row's sort values and text bytes (reused: nothing allocated a row).
        private var values: [ColumnValue] = []
        private var texts: [UnsafeRawBufferPointer?] = []

        init(_ query: PostgresKeyQuery) {
            index = SectionedIndex(ascending: query.sortDescriptors.map(\.ascending), unsectioned: query.sectionColumn == nil,
                                   sectionOrder: query.related.map { $0.order.map(\.ascending) })
            sortCount = query.sortDescriptors.count
            sectioned = query.sectionColumn != nil
            firstValueIsSection = sectioned && query.sortDescriptors.first?.column == query.sectionColumn
        }

        mutating func append(_ row: PostgresRow) throws {
            var cells = row.makeIterator()
            guard let idCell = cells.next(), idCell.bytes != nil else {
                throw LiveResultsError(.database, "A row of the result has no id.")
            }
            let id = try idCell.decode(Int64.self)
            // Text as its bytes, which stay valid while postgres-nio holds the row (this call);
            // other values decoded (and checked) now.
            values.removeAll(keepingCapacity: true)
            texts.removeAll(keepingCapacity: true)
            for column in 0..<sortCount {
                guard let cell = cells.next() else { throw LiveResultsError(.database, "A row of the result lacks a sort value.") }
                if cell.dataType == .text || cell.dataType == .varchar, let bytes = cell.bytes {
                    values.append(.null)
                    texts.append(bytes.withUnsafeReadableBytes { $0 })
                } else {
                    values.append(column == 0 && firstValueIsSection ? .null : try PostgresKeyQuery.value(cell))
                    texts.append(nil)
                }
            }
            let sectionCell = sectioned ? cells.next() : nil
            let (values, texts) = (self.values, self.texts)
            func sortValue(_ column: Int) -> ColumnValue {
                guard let text = texts[column] else { return values[column] }
                return String(decoding: text, as: UTF8.self).columnValue
            }
            if let lastSection, Self.bytes(of: sectionCell, equal: lastSection) {
                index.appendToLastSection(id: id, firstValueIsSection: firstValueIsSection, mapsID: false,
                                          sortValues: sortValue, utf8: { texts[$0] })
            } else {
                let section = try sectionCell.map(PostgresKeyQuery.value) ?? .null
                try index.appendSorted(id: id, section: section, sectionName: SectionedIndex.sectionName,
                                       firstValueIsSection: firstValueIsSection, mapsID: false, sortValues: sortValue)
                lastSection = .some(sectionCell?.bytes.map { Array($0.readableBytesView) })
            }
        }

        /// Whether `cell` (nil: an unsectioned row) holds `bytes` (nil: NULL).
        private static func bytes(of cell: PostgresCell?, equal bytes: [UInt8]?) -> Bool {
            guard let cell else { return true }
            guard let cellBytes = cell.bytes, let bytes else { return cell.bytes == nil && bytes == nil }
            return cellBytes.readableBytesView.elementsEqual(bytes)
        }
    }
}
