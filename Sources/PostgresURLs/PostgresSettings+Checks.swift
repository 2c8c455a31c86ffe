import Foundation

extension PostgresSettings {
    /// Throws for a `channel_binding` postgres-nio cannot honour.
    static func checkChannelBinding(_ setting: Setting?) throws(PostgresSettingsError) {
        guard let setting else { return }
        switch setting.value {
        case "disable", "prefer": return
        case "require": throw .channelBindingRequired(source: setting.source)
        default: throw .unknownChannelBinding(setting.value, source: setting.source)
        }
    }

    /// Throws for an `sslnegotiation` (libpq 17's) postgres-nio cannot honour: it asks the
    /// server for TLS first (`postgres`, libpq's default), never starts with the TLS handshake
    /// (`direct`, which needs PostgreSQL 17 on the server too).
    static func checkNegotiation(_ setting: Setting?) throws(PostgresSettingsError) {
        guard let setting else { return }
        switch setting.value {
        case "postgres": return
        case "direct": throw .directNegotiation(source: setting.source)
        default: throw .unknownNegotiation(setting.value, source: setting.source)
        }
    }

    /// libpq's reading of `connect_timeout`: whole seconds, 0 or less for no limit, 1 read as 2.
    static func connectTimeout(_ setting: Setting) throws(PostgresSettingsError) -> Int {
        guard let seconds = Int(setting.value.trimmingCharacters(in: .whitespaces)) else {
            throw .notSeconds(setting.value, source: setting.source)
        }
        return seconds <= 0 ? 0 : max(seconds, 2)
    }

    /// The host as the password file names it: libpq's `localhost` for the default socket
    /// directory, another socket's directory as it is.
    static func passwordFileHost(of url: PostgresURL) -> String {
        guard let directory = url.socketDirectory else { return url.host }
        return [defaultSocketDirectory, "/var/run/postgresql"].contains(directory) ? "localhost" : directory
    }

    /// The home directory of the user this process runs as (when HOME is not set).
    static func homeDirectory() -> String? {
        guard let entry = getpwuid(geteuid()), let home = entry.pointee.pw_dir else { return nil }
        return String(cString: home)
    }

    /// The name this process runs as, libpq's default user.
    static func loginName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "postgres" }
        return String(cString: name)
    }
}
