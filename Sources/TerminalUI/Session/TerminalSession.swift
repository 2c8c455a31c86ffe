import CNCursesW
import Glibc

/// Why a terminal session could not start.
public struct TerminalError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// Something the event loop must handle.
public enum TerminalEvent: Equatable, Sendable {
    case key(Key)
    /// SIGINT, SIGTERM or SIGHUP arrived: the program should end, restoring the terminal.
    case signal(Int32)
    /// Another thread called `wakeUp()`.
    case wake
}

/// The terminal, in curses mode for the lifetime of the session.
///
/// Set-up: locale, curses, cbreak, no echo, keypad, a short Esc delay, mouse clicks and the
/// wheel, colours when wanted (256 when the terminal has them, else eight). Tear-down (`end()`, also on deinit) restores the terminal;
/// SIGINT, SIGTERM and SIGHUP arrive as events instead, so the loop can end cleanly. A crash
/// (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTRAP) restores the terminal in a signal
/// handler before the signal takes its course.
/// Only the thread that created the session may use it, except for `wakeUp`.
public final class TerminalSession {
    /// The colours in use: 256 when the terminal's description has them (and enough colour
    /// pairs), else eight; nil without colours.
    public let colorDepth: ColorDepth?
    /// Whether colours are in use.
    public var usesColor: Bool { colorDepth != nil }
    private var screen: OpaquePointer?
    private var shown: Grid?
    private var pairs: [Style.ColorKey: Int16] = [:]
    /// Input is read byte by byte and decoded here, so that invalid bytes are dropped alone
    /// (curses' get_wch gives up on the rest of the read at the first one).
    private var input = UTF8Input()
    private let signalPipe: (read: Int32, write: Int32)
    private let wakePipe: (read: Int32, write: Int32)

    /// Starts curses on standard input and output.
    /// - Parameters:
    ///   - color: use colours when the terminal has them.
    ///   - escapeDelay: how long, in milliseconds, a lone Esc waits for the rest of a key
    ///     sequence, unless the environment's `ESCDELAY` says otherwise.
    ///   - mouse: report clicks, double-clicks and the wheel as `Key.mouse`.
    public init(color: Bool = true, escapeDelay: Int32 = 25, mouse: Bool = true) throws {
        try Self.checkInteractive()
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        setlocale(LC_ALL, "")
        cn_save_terminal_modes()
        signalPipe = Self.makePipe()
        wakePipe = Self.makePipe()
        guard let screen = cn_newterm() else {
            throw TerminalError(description: "The terminal type “\(term)” is unknown to this system; try TERM=xterm-256color.")
        }
        self.screen = screen
        set_term(screen)
        cn_install_signal_pipe(signalPipe.write)
        cbreak()
        noecho()
        // All eight bits of each byte: text arrives as UTF-8.
        meta(cn_stdscr(), true)
        nonl()
        keypad(cn_stdscr(), true)
        Self.defineHomeAndEnd()
        // ESCDELAY in the environment is the user's own choice (a slow link may need more).
        if getenv("ESCDELAY") == nil { set_escdelay(escapeDelay) }
        nodelay(cn_stdscr(), true)
        curs_set(0)
        if mouse {
            mousemask(cn_button1_clicked() | cn_button1_double_clicked() | cn_button4_pressed() | cn_button5_pressed(), nil)
        }
        cn_install_crash_handlers()
        if color, has_colors() {
            start_color()
            // Cells without a colour keep the terminal's own foreground and background.
            use_default_colors()
            // COLORS is known only after start_color. Pairs are made as styles ask for them;
            // a screen uses a few dozen.
            colorDepth = cn_colors() >= 256 && cn_color_pairs() >= 256 ? .indexed256 : .eight
        } else {
            colorDepth = nil
        }
    }

    deinit { end() }

    /// Throws unless standard input and output are a terminal of a type that can show a
    /// full-screen program. Call it before doing anything a failed start should not leave behind.
    public static func checkInteractive() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw TerminalError(description: "This needs an interactive terminal: standard input and output must both be a terminal.")
        }
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        guard !term.isEmpty, term != "dumb" else {
            throw TerminalError(description: "The terminal type “\(term.isEmpty ? "(unset)" : term)” cannot show a full-screen program; set TERM, for example TERM=xterm-256color.")
        }
    }

    /// Restores the terminal. Safe to call more than once.
    public func end() {
        guard let screen else { return }
        // Mouse reporting off explicitly, before curses lets go of the terminal.
        mousemask(0, nil)
        curs_set(1)
        endwin()
        cn_remove_crash_handlers()
        delscreen(screen)
        self.screen = nil
        cn_restore_default_signals()
        for fd in [signalPipe.read, signalPipe.write, wakePipe.read, wakePipe.write] { close(fd) }
    }

    /// The size of the terminal, in cells.
    public var size: (width: Int, height: Int) {
        (Int(cn_cols()), Int(cn_lines()))
    }

    /// A function any thread may call to make `nextEvents` return `.wake`.
    public var wakeUp: @Sendable () -> Void {
        let fd = wakePipe.write
        return {
            var byte: UInt8 = 1
            _ = write(fd, &byte, 1)
        }
    }

    // MARK: - Input

    /// Waits up to `timeout` seconds (nil: forever) for input, a signal or a wake-up,
    /// and returns everything that is ready.
    public func nextEvents(timeout: Double?) -> [TerminalEvent] {
        var fds = [
            pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
            pollfd(fd: signalPipe.read, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0),
        ]
        let milliseconds = timeout.map { Int32(max(0, min($0 * 1000, 3_600_000)).rounded(.up)) } ?? -1
        _ = poll(&fds, nfds_t(fds.count), milliseconds)
        var events: [TerminalEvent] = []
        if fds[1].revents & Int16(POLLIN) != 0 {
            for byte in drain(signalPipe.read) { events.append(.signal(Int32(byte))) }
        }
        if fds[2].revents & Int16(POLLIN) != 0, !drain(wakePipe.read).isEmpty {
            events.append(.wake)
        }
        // Keys: curses also reports a resize (SIGWINCH) as a key, even when poll was interrupted.
        while let key = readKey() { events.append(.key(key)) }
        return events
    }

    private func drain(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    /// The next key, or nil when no input is waiting. Bytes are decoded as UTF-8 (see
    /// `UTF8Input`); a byte that ends no character yet is read past.
    private func readKey() -> Key? {
        while true {
            let value = cn_getch()
            if value == cn_err() { return nil }
            if value == KEY_MOUSE {
                var buttons: mmask_t = 0
                var x: Int32 = 0
                var y: Int32 = 0
                guard cn_get_mouse(&buttons, &x, &y) == cn_ok(), let event = Self.mouseEvent(buttons: buttons, x: Int(x), y: Int(y)) else {
                    return .unknown(value)
                }
                return .mouse(event)
            }
            guard (0...0xFF).contains(value) else { return Self.key(code: value) }
            guard let scalar = input.feed(UInt8(value)) else { continue }
            if scalar.value == UInt32(EscapeInput.escape) {
                return EscapeInput.key(next: { let next = cn_getch(); return next == cn_err() ? nil : next }, pushBack: { _ = ungetch($0) })
            }
            return Self.key(character: Int32(bitPattern: scalar.value))
        }
    }

    // MARK: - Output

    /// Shows a grid, writing only the cells that differ from the grid shown before.
    /// `caret` places the visible text caret (nil hides it).
    public func present(_ grid: Grid, caret: (x: Int, y: Int)? = nil) {
        let previous = shown.flatMap { $0.width == grid.width && $0.height == grid.height ? $0 : nil }
        if previous == nil { erase() }
        for y in 0..<grid.height {
            for x in 0..<grid.width {
                let cell = grid[x, y]
                if cell.isContinuation { continue }
                if let previous, previous[x, y] == cell, x + 1 >= grid.width || previous[x + 1, y] == grid[x + 1, y] { continue }
                // The bottom-right cell too (a dialog's corner at 40×10): curses writes it
                // without scrolling (the write reports an error, as the cursor cannot move on).
                put(cell, x: x, y: y)
            }
        }
        shown = grid
        if let caret {
            curs_set(1)
            move(Int32(caret.y), Int32(caret.x))
        } else {
            curs_set(0)
        }
        refresh()
    }

    /// Forgets what is on screen, so the next `present` redraws everything.
    public func invalidate() {
        shown = nil
        clearok(cn_stdscr(), true)
    }

    private func put(_ cell: Grid.Cell, x: Int, y: Int) {
        let style = colorDepth != nil ? cell.style : cell.style.withoutColor
        let scalars = Array(cell.text.unicodeScalars)
        // An emoji flag is two regional indicators, and curses keeps one spacing character per
        // cell: each indicator goes into one of the flag's two cells, written side by side.
        if DisplayText.isEmojiFlag(scalars) {
            for (offset, scalar) in scalars.enumerated() { put(scalars: [scalar], x: x + offset, y: y, style: style) }
            return
        }
        put(scalars: scalars.prefix(5), x: x, y: y, style: style)
    }

    private func put(scalars: some Sequence<Unicode.Scalar>, x: Int, y: Int, style: Style) {
        var text = scalars.map { wchar_t(bitPattern: $0.value) }
        text.append(0)
        _ = text.withUnsafeBufferPointer { buffer in
            cn_put_cell(Int32(y), Int32(x), buffer.baseAddress, attributes(style), pair(for: style))
        }
    }

    private func attributes(_ style: Style) -> attr_t {
        var value = cn_attr_normal()
        if style.bold { value |= cn_attr_bold() }
        if style.reverse { value |= cn_attr_reverse() }
        if style.dim { value |= cn_attr_dim() }
        if style.underline { value |= cn_attr_underline() }
        return value
    }

    private func pair(for style: Style) -> Int16 {
        let key = style.colorKey(colorDepth ?? .eight)
        if key.foreground == -1, key.background == -1 { return 0 }
        if let pair = pairs[key] { return pair }
        let next = Int16(pairs.count + 1)
        guard Int32(next) < cn_color_pairs() else { return 0 }
        init_pair(next, key.foreground, key.background)
        pairs[key] = next
        return next
    }

    private static func makePipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        _ = pipe(&fds)
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        return (fds[0], fds[1])
    }
}

extension Style {
    struct ColorKey: Hashable {
        var foreground: Int16
        var background: Int16
    }

    /// The colour numbers of the style at a depth; -1 for the terminal's default.
    func colorKey(_ depth: ColorDepth) -> ColorKey {
        ColorKey(foreground: foreground.map(depth.number(for:)) ?? -1, background: background.map(depth.number(for:)) ?? -1)
    }
}
