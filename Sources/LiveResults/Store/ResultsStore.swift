import Foundation

/// Where a controller's rows live: the seam between a database (SQLite, PostgreSQL) and the
/// controller, which keeps the result in memory (`LiveResult`) and delivers its batches.
///
/// A store reads keys in exactly the order LiveResults keeps in memory (`SQLiteOrdering`),
/// and starts the `ChangeFeed` that tells what commits changed. Whole records are not its
/// protocol's business: each store's controller initializer gives the controller a
/// `RecordLoader` that decodes its own rows.
/// Every method is synchronous and called from the controller's thread.
///
/// How a store answers faster is its own business: SQLite's keeps the index between
/// launches in a section cache, behind `fetch` and `keep(_:at:)`.
package protocol ResultsStore: AnyObject {
    /// Fetches the whole result and, with `tracking`, starts following its changes from the
    /// same snapshot, so that no commit falls between the two. A store that kept the result
    /// of an earlier launch may start from it, and says so in the fetch's `source`.
    func fetch(_ query: StoreQuery, tracking: Tracking?) throws -> StoreFetch

    /// The controller goes away holding `index`, the result of its last fetch brought up to
    /// the change log's `position` (nil: no log). A store that keeps results between
    /// launches saves it for the next fetch; others do nothing.
    func keep(_ index: SectionedIndex, at position: Int64?) throws

    /// A fresh copy of the whole result, in order, for a controller that must catch up by
    /// comparing; every related row (`query.relatedSections`; empty without); and the change
    /// log position it reflects, where the store has one.
    func fetchAll(_ query: StoreQuery) throws -> StoreRows

    /// Calls `body` with the id and the value of `column`, as text (UTF-8 bytes; nil for
    /// NULL), of every row of `table`, or of those of `ids` that exist: the column of an
    /// in-memory filter (`ResultsFilter`). Throws when the table has no such column.
    func forEachText(inColumn column: String, table: String, ids: [RecordID]?,
                     _ body: (RecordID, UnsafeRawBufferPointer?) throws -> Void) throws
}

extension ResultsStore {
    /// Keeps nothing between launches.
    package func keep(_ index: SectionedIndex, at position: Int64?) throws {}
}

/// What a store reads: rows of one table that match a predicate, in the order of the sort
/// descriptors (then by id), split into sections by one column's value.
///
/// Through a relationship (`relatedSections`), `sectionColumn` is its foreign key: a row's
/// section value is its foreign key's, and only rows whose foreign key names a related row
/// are read (an inner join). Sections then come in the order of their related rows (the
/// order columns, then the key), and rows inside a section in the order of the sort
/// descriptors, then by id. A fetch's index holds every related row (`SectionedIndex.setSectionRow`).
package struct StoreQuery: Sendable {
    package var tableName: String
    /// An SQL condition with bound arguments; nil for every row.
    package var predicate: ResultsPredicate?
    package var sortDescriptors: [SortColumn]
    /// The column whose value names the section; nil for one unnamed section.
    package var sectionColumn: String?
    /// Sections through a related table; nil for sections keyed by `sectionColumn`'s value.
    package var relatedSections: RelatedSections?

    package init(tableName: String, predicate: ResultsPredicate?, sortDescriptors: [SortColumn], sectionColumn: String?, relatedSections: RelatedSections? = nil) {
        self.tableName = tableName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.sectionColumn = relatedSections?.foreignKey ?? sectionColumn
        self.relatedSections = relatedSections
    }
}

/// A fresh copy of a whole result (`ResultsStore.fetchAll`).
package struct StoreRows {
    /// Every matching row, in result order.
    package var rows: [(id: RecordID, key: RowKey)]
    /// Every related row, by key, through a relationship; empty otherwise.
    package var sections: [(id: ColumnValue, row: SectionRow)]
    /// The change log position the rows reflect, where the store has one.
    package var position: Int64?

    package init(rows: [(id: RecordID, key: RowKey)], sections: [(id: ColumnValue, row: SectionRow)] = [], position: Int64?) {
        self.rows = rows
        self.sections = sections
        self.position = position
    }
}

/// How a store's change feed wakes its controller and how eagerly it looks for commits. The
/// intervals are the ones at the fetch (`ChangeFeed.retune` changes them later); `notify` and
/// `notifiesOwnWrites` are asked at each change, so the controller's settings apply at once.
package struct Tracking: Sendable {
    /// Called, on any thread, when changes wait to be taken.
    package var notify: @Sendable () -> Void
    /// The safety-net interval between looks for commits of other connections; zero for none.
    package var pollInterval: Duration
    /// The shortest time between two looks woken by writes.
    package var minimumLookInterval: Duration
    /// Whether `notify` is called for changes of the connection's own writes
    /// (`ChangeOrigin.ownWrites`) too, now; changes from elsewhere always call it.
    package var notifiesOwnWrites: @Sendable () -> Bool
}

/// What a store's fetch returns.
package struct StoreFetch {
    /// The whole result.
    package var index: SectionedIndex
    /// The changes since the snapshot `index` comes from; nil when not tracking.
    package var feed: (any ChangeFeed)?
    /// The change log position `index` reflects, where the store has one.
    package var position: Int64?
    /// Where `index` came from.
    package var source: FetchSource

    package init(index: SectionedIndex, feed: (any ChangeFeed)?, position: Int64? = nil, source: FetchSource = .database) {
        self.index = index
        self.feed = feed
        self.position = position
        self.source = source
    }
}
