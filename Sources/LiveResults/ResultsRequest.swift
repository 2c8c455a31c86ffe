/// One ordering term of a fetch request: a column and a direction.
///
/// Text is always compared with SQLite's BINARY collation (byte order of the UTF-8
/// encoding), both in the query and in memory, so the two orders can never disagree.
public struct SortColumn: Hashable, Sendable {
    /// The column to order by.
    public var column: String
    /// True for ascending order (the default), false for descending.
    public var ascending: Bool

    /// Orders by `column`, ascending unless `ascending` is false.
    public init(_ column: String, ascending: Bool = true) {
        self.column = column
        self.ascending = ascending
    }
}

/// What a results controller fetches: rows of one table, an optional predicate and an order.
///
/// The table is the controller's (`ResultsController.tableName`), named by the store's
/// initializer: with GRDB records, `Record.databaseTableName` (GRDB's `TableRecord`): unless
/// the record names it, GRDB derives it from the type's name with a lowercase first letter, so
/// a `TodoItem` reads the table "todoItem". Give the record
/// `static let databaseTableName = "todo_item"` when the table is named otherwise; a table that
/// does not exist fails `performFetch()` with an error that names it.
public struct ResultsRequest<Record> {
    /// An SQL condition on the table's columns, such as `"wins > \(3)"`; nil matches every row.
    public var predicate: ResultsPredicate?
    /// The order of the rows. At least one is required; the row id breaks ties.
    public var sortDescriptors: [SortColumn]
    /// How many whole records are loaded at once when they are accessed.
    /// Zero loads the whole result on first access.
    public var fetchBatchSize: Int
    /// The most rows the result holds: the first ones in order. Zero for no limit.
    ///
    /// The controller still knows where every matching row sorts (ids and keys only), so rows
    /// that move into the limit as others leave are reported without a query.
    public var fetchLimit: Int

    /// A request for the rows of `Record`'s table that match `predicate`, in the order of
    /// `sortDescriptors` (at least one).
    public init(predicate: ResultsPredicate? = nil, sortDescriptors: [SortColumn], fetchLimit: Int = 0, fetchBatchSize: Int = 0) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchBatchSize = fetchBatchSize
    }
}

/// Where `performFetch()` took a result from.
public enum FetchSource: Hashable, Sendable {
    /// A query of the whole result.
    case database
    /// The section cache file, brought up to date from the change log.
    case cache
}
