import Foundation
import GRDB
import LiveResults

extension ResultsController where Record: FetchableRecord & TableRecord {
    /// A controller over an SQLite database (a GRDB `DatabaseQueue` or `DatabasePool`), reading
    /// `Record.databaseTableName` and decoding records with GRDB's `FetchableRecord`.
    public convenience init(database: any DatabaseWriter, fetchRequest: ResultsRequest<Record>, sectionNameKeyPath: String? = nil,
                            cacheName: String? = nil, cacheDirectory: URL? = nil) {
        let store = SQLiteResultsStore(database: database, cache: cacheName.map { SectionCache(name: $0, directory: cacheDirectory) })
        self.init(store: store, tableName: Record.databaseTableName, loadRecords: store.recordLoader(Record.self),
                  fetchRequest: fetchRequest, sectionNameKeyPath: sectionNameKeyPath, cacheName: cacheName, cacheDirectory: cacheDirectory)
    }

    /// A controller over an SQLite database whose sections are the rows of a related table
    /// (`RelatedSections`): titled and ordered by the related row, identified by its key, so
    /// that a section can be renamed (a section update) and reordered (a section move).
    /// The request's sort descriptors order the rows inside each section.
    public convenience init(database: any DatabaseWriter, fetchRequest: ResultsRequest<Record>, sections: RelatedSections,
                            cacheName: String? = nil, cacheDirectory: URL? = nil) {
        let store = SQLiteResultsStore(database: database, cache: cacheName.map { SectionCache(name: $0, directory: cacheDirectory) })
        self.init(store: store, tableName: Record.databaseTableName, loadRecords: store.recordLoader(Record.self),
                  fetchRequest: fetchRequest, relatedSections: sections, cacheName: cacheName, cacheDirectory: cacheDirectory)
    }
}

extension ResultsRequest where Record: TableRecord {
    /// The table GRDB's records live in: `Record.databaseTableName`.
    public var tableName: String { Record.databaseTableName }
}
