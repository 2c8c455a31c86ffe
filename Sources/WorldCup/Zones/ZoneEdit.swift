/// A change of one zone that a person asks for, as `TeamStore.changeZone` makes it (by the
/// zone's rules, `ZonePlan`, which both stores share).
public enum ZoneEdit: Sendable, Equatable {
    /// A new name (`TeamStore.renameZone`).
    case rename(to: String)
    /// A new place among the zones (`TeamStore.moveZone`).
    case move(to: Int)
    /// Its teams into the zone with this id, and the zone gone (`TeamStore.mergeZone`).
    case merge(into: Int64)
}
