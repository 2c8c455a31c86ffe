import Foundation

/// One element of a ``LiveQuerySubscription``: the whole result, or what changed since the
/// element before.
///
/// A subscription starts with a ``snapshot(_:)``; every element after it is a ``batch(_:)``
/// whose ``LiveQueryBatch/previousVersion`` is the version of the element before (no gap, no
/// overlap), or, after the query reset (the controller could not tell what changed) or after
/// the subscriber fell further behind than the query keeps, a snapshot again.
public enum LiveQueryUpdate<Value: Sendable>: Sendable {
    /// The whole result: replace what you hold.
    case snapshot(LiveQuerySnapshot<Value>)
    /// The exact changes from the result at `previousVersion` to the result at `version`.
    case batch(LiveQueryBatch<Value>)

    /// The version of the result after this element.
    public var version: Int {
        switch self {
        case .snapshot(let snapshot): snapshot.version
        case .batch(let batch): batch.version
        }
    }
}

/// The whole result of a ``LiveQuery`` at one version: its sections in order, each with its
/// rows' ids and values.
public struct LiveQuerySnapshot<Value: Sendable>: Sendable {
    /// The query's step this is the result of. Versions grow by one per step of the query.
    public var version: Int
    /// The sections, in order (one, possibly empty, without a section key).
    public var sections: [LiveQuerySection<Value>]
}

/// One section of a ``LiveQuerySnapshot``.
public struct LiveQuerySection<Value: Sendable>: Sendable {
    /// What identifies the section across batches, as ``SectionChange/identifier``.
    public var identifier: String
    /// The section's name (its title through a relationship).
    public var name: String
    /// The ids of its rows, in order.
    public var ids: [RecordID]
    /// The values of its rows (the query's `map` of each record), in the order of `ids`.
    public var values: [Value]
}

/// The exact changes from the result at ``previousVersion`` to the result at ``version``, with
/// the values of the rows they place.
///
/// ``changes`` follows the rules of a controller's batch (deletes in the old result's index
/// paths, inserts in the new one's, moves by relative order, updates carrying both paths).
/// A subscriber that kept up gets the controller's batch as it came; one that fell behind by
/// several steps gets them as one batch from the result it last saw: rows inserted, deleted,
/// moved between them, and as updates the rows any of the missed steps changed that are in
/// both results (when `Value` is `Equatable`, only those whose value changed). Such a batch is
/// empty when the steps it covers cancel out (a row inserted, then deleted; a value changed
/// and changed back): it then only brings the subscriber to ``version``.
public struct LiveQueryBatch<Value: Sendable>: Sendable {
    /// The version of the result the batch applies to: the version of the element before.
    public var previousVersion: Int
    /// The version of the result after it.
    public var version: Int
    /// The section and row changes, in the order a table view applies them.
    public var changes: ChangeBatch
    /// ``ChangeOrigin/ownWrites`` only when every commit it covers was the controller's own.
    public var origin: ChangeOrigin
    /// The value of every row the batch places (inserted, moved or updated), by id, as it is
    /// at ``version``.
    public var values: [RecordID: Value]
}
