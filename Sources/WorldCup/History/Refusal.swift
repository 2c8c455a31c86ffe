/// An undo or a redo that a rule refused (README, "Undo"): nothing was written, and asking
/// again changes nothing until the team changes. Distinct from a failure (a lost connection,
/// a locked file, a deadline), whose change may still be taken back by asking again: a board
/// drops a refused change from its stack, and keeps a failed one.
public struct Refusal: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    /// The history entry whose undo (or, for an undo's entry, whose redo) was refused, when
    /// trying it again later may work: the store marks it, so that `undoLast` and `redoLast`
    /// pass over it, and a sentence can say how to reach it by its id.
    public var entryID: Int64?

    public init(_ description: String, entryID: Int64? = nil) {
        self.description = description
        self.entryID = entryID
    }

    /// The sentence with `clause` added before its full stop.
    public func appending(_ clause: String) -> Refusal {
        let base = description.hasSuffix(".") ? String(description.dropLast()) : description
        return Refusal("\(base)\(clause).", entryID: entryID)
    }
}
