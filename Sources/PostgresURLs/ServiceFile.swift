import Foundation

/// libpq's connection service file: named sections of `keyword=value` lines, such as
///
/// ```
/// [worldcup]
/// host=db.example
/// dbname=worldcup
/// sslmode=verify-full
/// ```
///
/// A service (`?service=` or PGSERVICE) is looked for in PGSERVICEFILE or ~/.pg_service.conf,
/// then in the system's file (PGSYSCONFDIR/pg_service.conf, or Debian's
/// /etc/postgresql-common/pg_service.conf). Its settings come after the URL's and before the
/// environment's, as in libpq.
struct ServiceFile {
    /// The file's path.
    let path: String

    /// The settings of `service`, from the first file that defines it. Throws when none does,
    /// or when its section has a line that cannot be used.
    static func settings(of service: String, environment variable: (String) -> String?, home: String?) throws(PostgresSettingsError) -> [String: String] {
        let user = variable("PGSERVICEFILE") ?? home.map { "\($0)/.pg_service.conf" }
        let system = (variable("PGSYSCONFDIR") ?? "/etc/postgresql-common") + "/pg_service.conf"
        for path in [user, system].compactMap({ $0 }) {
            if let settings = try ServiceFile(path: path).settings(of: service) { return settings }
        }
        throw .undefinedService(service, files: [user, system].compactMap { $0 })
    }

    /// The settings of `service` in this file; nil when the file does not exist or has no such section.
    func settings(of service: String) throws(PostgresSettingsError) -> [String: String]? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var settings: [String: String]?
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                if settings != nil { break }
                if line == "[\(service)]" { settings = [:] }
                continue
            }
            guard settings != nil else { continue }
            guard let equals = line.firstIndex(of: "=") else { throw .serviceLineWithoutValue(file: path, line: number + 1) }
            let keyword = line[..<equals].trimmingCharacters(in: .whitespaces)
            guard PostgresSettings.keywords.contains(keyword) else {
                // Only the keyword is kept: the value may be a password (a misspelt `pasword=`).
                throw .unknownServiceKeyword(file: path, line: number + 1, keyword: keyword)
            }
            settings?[keyword] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return settings
    }
}
