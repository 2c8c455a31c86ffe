/// libpq's `target_session_attrs` (PGTARGETSESSIONATTRS): which of several hosts is kept. The
/// modes that look for a standby are refused: the programs reading these settings write.
public enum TargetSession: String, CaseIterable, Equatable, Sendable {
    /// The first server that accepts the connection.
    case any
    /// The first whose sessions may write (`transaction_read_only` off).
    case readWrite = "read-write"
    /// The first that is not a standby (not in recovery).
    case primary

    /// The mode `setting` names.
    public init(parsing setting: PostgresSettings.Setting) throws(PostgresSettingsError) {
        guard let mode = TargetSession(rawValue: setting.value) else {
            let standby = ["read-only", "standby", "prefer-standby"].contains(setting.value)
            throw .unfollowedTargetSession(setting.value, source: setting.source, isStandby: standby)
        }
        self = mode
    }

    /// The query that says whether a session is one to keep (one boolean), nil for `any`.
    public var acceptingQuery: String? {
        switch self {
        case .any: nil
        case .readWrite: "SELECT current_setting('transaction_read_only') = 'off'"
        case .primary: "SELECT NOT pg_is_in_recovery()"
        }
    }
}
