/// A new change of a zone, checked by the rules both stores share before anything is written.
extension ZonePlan {
    /// The sentence for a zone that is gone.
    public static let noZone = WorldCupError("That zone no longer exists.")

    /// Renaming `zone` to what a person typed: a zone's name rules (`TeamValidation.checkZone`),
    /// trimmed; a new spelling of the same name (another case) is a rename too. The name's
    /// freedom among the other zones is the store's to check (`checkName(heldBy:reverting:)`).
    public static func renaming(_ zone: Zone, to typed: String) throws -> ZonePlan {
        try TeamValidation.checkZone(typed)
        let name = TeamValidation.trimmed(typed)
        guard name != zone.name else {
            throw WorldCupError("The zone is already named \(WorldCupError.quotable(name)), so nothing was changed.")
        }
        return .rename(zone, to: name)
    }

    /// Moving `zone` to `position` (0 first) among `zoneCount` zones.
    public static func moving(_ zone: Zone, to position: Int, zoneCount: Int) throws -> ZonePlan {
        guard (0..<zoneCount).contains(position) else {
            throw WorldCupError("There \(zoneCount == 1 ? "is 1 zone" : "are \(zoneCount) zones"), so the position must be from 1 to \(zoneCount).")
        }
        guard position != zone.position else {
            throw WorldCupError("\(WorldCupError.quotable(zone.name)) is at position \(position + 1) already, so nothing was changed.")
        }
        return .move(zone, to: position)
    }

    /// Merging `zone` into `into` (nil: the store found no such zone).
    public static func merging(_ zone: Zone, into: Zone?) throws -> ZonePlan {
        guard let into else { throw WorldCupError("The zone to merge into no longer exists.") }
        guard into.id != zone.id else { throw WorldCupError("A zone is not merged into itself.") }
        return .merge(zone, into: into)
    }
}
