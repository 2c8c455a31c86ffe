import CNCursesW

/// What curses' input means as keys: its key codes, the characters it reads, its mouse
/// events, and the Home and End sequences a terminal description may lack.
extension TerminalSession {
    /// What terminals send for Home and End: xterm in its two cursor-key modes, then the
    /// VT220 keypad's (tmux, screen and the Linux console) and rxvt's.
    static let homeAndEndSequences: [(sequence: String, code: Int32)] = [
        ("\u{1B}OH", KEY_HOME), ("\u{1B}[H", KEY_HOME), ("\u{1B}[1~", KEY_HOME), ("\u{1B}[7~", KEY_HOME),
        ("\u{1B}OF", KEY_END), ("\u{1B}[F", KEY_END), ("\u{1B}[4~", KEY_END), ("\u{1B}[8~", KEY_END),
    ]

    /// Teaches curses the Home and End sequences its terminal description lacks. The
    /// description names one of each, but a terminal sends another when it runs under a TERM
    /// that is not its own (tmux sends `ESC [ 1 ~` for Home whatever TERM says; xterm sends
    /// `ESC [ H` or `ESC O H` by its cursor-key mode). A sequence the description gives to
    /// another key keeps it.
    static func defineHomeAndEnd() {
        for (sequence, code) in homeAndEndSequences where key_defined(sequence) == 0 {
            _ = define_key(sequence, code)
        }
    }

    /// The key a character read from the terminal stands for: Enter, Tab, Esc, Backspace,
    /// Ctrl with a letter, or the character itself.
    static func key(character value: Int32) -> Key {
        switch value {
        case 10, 13: return .enter
        case 9: return .tab
        case 27: return .escape
        case 8, 127: return .backspace
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(value) + 96)))
        default:
            guard let scalar = Unicode.Scalar(UInt32(bitPattern: value)) else { return .unknown(value) }
            return .character(Character(scalar))
        }
    }

    /// The key one of curses' key codes (`KEY_UP`, `KEY_F(n)`, …) stands for; `.unknown` for
    /// codes the board has no use for.
    static func key(code: Int32) -> Key {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case KEY_BTAB: return .backTab
        case KEY_RESIZE: return .resize
        case cn_key_f(1)...cn_key_f(63): return .function(Int(code - cn_key_f(0)))
        default: return .unknown(code)
        }
    }

    /// The mouse event that curses' button state describes; nil for buttons the session ignores.
    static func mouseEvent(buttons: mmask_t, x: Int, y: Int) -> MouseEvent? {
        let action: MouseEvent.Action
        if buttons & cn_button1_double_clicked() != 0 {
            action = .doubleClick
        } else if buttons & cn_button1_clicked() != 0 {
            action = .click
        } else if buttons & cn_button4_pressed() != 0 {
            action = .scrollUp
        } else if buttons & cn_button5_pressed() != 0 {
            action = .scrollDown
        } else {
            return nil
        }
        return MouseEvent(action, x: x, y: y)
    }
}
