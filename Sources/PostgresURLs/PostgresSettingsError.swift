/// What the reading of libpq's settings found wrong, with the values involved: this module
/// says what went wrong, the program that uses it words the sentence for people (and decides
/// how to quote the values, which may come from anywhere).
public enum PostgresSettingsError: Error, Equatable, Sendable {
    /// The text is not a well-formed postgres:// or postgresql:// URL (never repeated: it may
    /// hold a password).
    case malformedURL
    /// A URL parameter that is not one of `PostgresSettings.parameters` nor the URL's parts.
    case unknownParameter(String)
    /// No service file defines the service; `files` are the paths looked in, in order.
    case undefinedService(String, files: [String])
    /// A line (counted from 1) of the service's section that is not `keyword=value`.
    case serviceLineWithoutValue(file: String, line: Int)
    /// A line of the service's section that sets a keyword not known; only the keyword is
    /// kept, as the value may be a password (a misspelt `pasword=`).
    case unknownServiceKeyword(file: String, line: Int, keyword: String)
    /// PGPORT, or the service's `port` when `fromService`, is not a port number.
    case notAPort(String, fromService: Bool)
    /// An `sslmode` libpq does not know; `source` is where it came from (`sslmode`, PGSSLMODE).
    case unknownSSLMode(String, source: String)
    /// A `target_session_attrs` that is not `TargetSession`'s: unknown to libpq, or one that
    /// looks for a standby (`isStandby`), which a program that writes cannot follow.
    case unfollowedTargetSession(String, source: String, isStandby: Bool)
    /// `channel_binding=require`, which needs SCRAM-SHA-256-PLUS: postgres-nio has none.
    case channelBindingRequired(source: String)
    /// A `channel_binding` libpq does not know.
    case unknownChannelBinding(String, source: String)
    /// `sslnegotiation=direct` (libpq 17's), which postgres-nio cannot do.
    case directNegotiation(source: String)
    /// An `sslnegotiation` libpq does not know.
    case unknownNegotiation(String, source: String)
    /// A `connect_timeout` that is not a whole number of seconds.
    case notSeconds(String, source: String)
    /// `sslrootcert=system` with a mode other than verify-full, which the system's roots need.
    case systemRootsNeedVerifyFull(source: String, mode: SSLMode)
    /// A mode that verifies (verify-ca, verify-full), and no root certificates to verify with.
    case verificationWithoutRoots(SSLMode)
    /// A file a TLS setting names (the `setting`, or the one whose default it is) that cannot be used.
    case unusableFile(String, role: FileRole, setting: String, problem: FileProblem)
    /// A client certificate without its key: none at `keyLookedFor` (the default place), or no
    /// home to look in (nil).
    case clientCertificateWithoutKey(String, keyLookedFor: String?)
    /// The client's key file can be read by others; `permissions` are its mode's lowest bits.
    case clientKeyReadableByOthers(String, permissions: UInt32)

    /// What a file is for.
    public enum FileRole: Equatable, Sendable {
        case rootCertificate, clientCertificate, clientKey
    }

    /// Why a file cannot be used.
    public enum FileProblem: Equatable, Sendable {
        case missing
        /// Its status cannot be read (an `errno` other than ENOENT).
        case inaccessible(errno: Int32)
        case notRegular
        /// It cannot be opened for reading (`errno`).
        case unreadable(errno: Int32)
    }
}

/// What the reading found worth a warning, though it goes on: libpq's warnings.
public enum PostgresSettingsWarning: Equatable, Sendable {
    /// The password file at this path is not a plain file, so it was ignored.
    case passwordFileNotPlain(String)
    /// The password file at this path can be read by group or others, so it was ignored.
    case passwordFileReadableByOthers(String)
}
