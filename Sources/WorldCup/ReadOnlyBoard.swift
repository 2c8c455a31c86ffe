import Foundation

/// Why a store changes nothing: a spectator's board. Found when the store opens (asked for,
/// or what the server lets the user do), never by letting a write fail; every change is then
/// refused at once in one sentence (`refusal`), and nothing is sent.
public enum ReadOnlyBoard: Equatable, Sendable {
    /// `--read-only` or `WORLDCUP_READ_ONLY=1`: the person asked to only watch.
    case asked
    /// The user the server knows may read the board but not change it (a watcher role:
    /// SELECT granted, and not every privilege a tap, an add and a delete need).
    case role(user: String)
    /// The server lets this session only read (`default_transaction_read_only`, for the user
    /// or the database).
    case server

    /// What the board's title says.
    public static let titleWord = "read-only"

    /// The one sentence a refused change gets, on the status line or on stderr.
    public var refusal: WorldCupError {
        switch self {
        case .asked:
            WorldCupError("This board is read-only (--read-only or WORLDCUP_READ_ONLY), so nothing was changed.")
        case .role(let user):
            WorldCupError("The user “\(WorldCupError.quotable(user))” may only watch this board, so nothing was changed.")
        case .server:
            WorldCupError("The PostgreSQL server lets this session only read (default_transaction_read_only), so nothing was changed.")
        }
    }

    /// Whether `WORLDCUP_READ_ONLY` in `environment` asks for read-only boards: set and not
    /// empty, `0`, `false` or `no`.
    public static func isAsked(environment: [String: String]) -> Bool {
        guard let value = environment["WORLDCUP_READ_ONLY"]?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return !["", "0", "false", "no", "off"].contains(value)
    }
}
