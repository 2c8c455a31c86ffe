/// A filter a results controller applies in memory, on top of its request: the rows whose
/// text `column` contains `text`, byte for byte (exactly SQL's `instr(column, text) > 0`;
/// NULL contains nothing, and every text contains the empty text).
///
/// Made for a filter typed one key at a time over a large result: the first use reads the
/// column of every row once into a compact buffer, with the first 16 bytes of every value
/// also laid out by position (about 37 bytes a row for 12-byte values), and from then on
/// each new text is answered in memory, without a query. A text is found position by
/// position, one byte after another, 64 rows a step, and not at all where the bytes at a
/// position say that no row, or every row, holds the byte there; a text that only narrows
/// the previous one (contains it) tests only the rows that passed, one typed a key further
/// starts from where the previous text was found, and a large column is read on several
/// threads. While every row passes, the controller shows
/// its whole index without copying it; otherwise a view of the passing rows that shares the
/// index's keys (4 bytes a passing row: their slots; no id or key is copied).
/// Commits keep arriving as exact events in the filtered result's index spaces: a changed
/// row that starts or stops passing is an insert or a delete (its value is read again with
/// its key). The request's own result must be sectioned in order, filtered or not.
///
/// Reading the column is a scan of the whole table, which a person typing would notice at a
/// million rows: a screen calls
/// `ResultsController.prepareFilter(inColumn:)` when its filter opens, so that the column is
/// read on a thread of its own while keys are typed, and the filter applies when it is in
/// (`isFilterPending` until then; commits made meanwhile are taken into account).
///
/// The alternative, a predicate in the request, fetches the whole result again at each
/// change, a query over every row where this reads memory it already holds.
///
/// Folding (case, Unicode normalisation) is the application's: keep a folded copy of the
/// text in a column, and give the filter the folded text.
public struct ResultsFilter: Hashable, Sendable {
    /// The text column the filter reads.
    public var column: String
    /// The text a row's value must contain.
    public var text: String

    /// The rows whose `column` contains `text`.
    public static func contains(_ text: String, inColumn column: String) -> ResultsFilter {
        ResultsFilter(column: column, text: text)
    }

    /// The text's UTF-8 bytes, which values are matched against.
    var needle: [UInt8] { Array(text.utf8) }
}
