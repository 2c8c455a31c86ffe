/// An error reported by a results controller, with a sentence a person can read.
public struct LiveResultsError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What went wrong.
    public enum Kind: Equatable, Sendable {
        /// The request has no sort descriptor.
        case missingSortDescriptor
        /// The request names a column the table does not have.
        case unknownColumn(String)
        /// The section key is not ordered like the first sort descriptor.
        case sectionOutOfOrder
        /// The database refused the query.
        case database
        /// The table's change log was installed before this column was added, and does not
        /// record its changes: install it again.
        case changeLogMissesColumn(String)
    }

    /// The kind of failure.
    public var kind: Kind
    /// One sentence describing the failure.
    public var description: String

    package init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
