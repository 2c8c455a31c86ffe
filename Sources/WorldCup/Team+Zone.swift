extension Team {
    /// The spelling the board already has for the zone a person typed: among `zones`, the
    /// one spelt exactly so, else the first equal to it ignoring case, accents and Unicode
    /// normalisation (`Zone.nameKey`); nil for a new zone. "africa" or "África" typed beside
    /// "Africa" joins it instead of starting a second section.
    public static func existingSpelling(ofZone typed: String, among zones: some Sequence<String>) -> String? {
        let typed = TeamValidation.trimmed(typed)
        let key = Zone.nameKey(typed)
        var match: String?
        for zone in zones {
            if zone == typed { return zone }
            if match == nil, Zone.nameKey(zone) == key { match = zone }
        }
        return match
    }
}
