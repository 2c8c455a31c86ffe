import Foundation

extension IndexPath {
    /// An index path of a row in a section, as table views use it.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The section of a two-index path.
    public var section: Int { self[0] }

    /// The row of a two-index path.
    public var row: Int { self[1] }
}
