import Glibc

/// Whether the terminal's own background is dark or light, as the terminal says.
///
/// Two sources, as terminal programs commonly read them: `COLORFGBG` ("15;0": the colour
/// numbers of the text and of the background, set by rxvt, Konsole and others), and the
/// answer to an OSC 11 query (`ESC ] 11 ; ? BEL`), which xterm, VTE terminals, kitty, iTerm2
/// and tmux give as `ESC ] 11 ; rgb:RRRR/GGGG/BBBB`. The query goes out with a device
/// attributes request (`ESC [ c`), which every terminal answers: when that answer comes
/// first, the terminal does not know OSC 11, and nobody waits for the timeout.
public enum TerminalBackground {
    /// The background `COLORFGBG` names, if it names one: colour 7 or 9–15 is light, the
    /// others dark (rxvt's convention).
    public static func fromColorFGBG(_ value: String?) -> Palette.Background? {
        guard let value, let last = value.split(separator: ";").last, let number = Int(last), (0...255).contains(number) else { return nil }
        return number == 7 || (9...15).contains(number) ? .light : .dark
    }

    /// The background an OSC 11 answer gives (`rgb:RRRR/GGGG/BBBB`, one to four hex digits a
    /// channel), if `answer` holds one: light when its luminance is past the middle.
    public static func fromOSC11Answer(_ answer: [UInt8]) -> Palette.Background? {
        let marker = Array("]11;rgb:".utf8)
        guard let start = answer.indices.first(where: { answer[$0...].starts(with: marker) }) else { return nil }
        let digits = String(decoding: answer[(start + marker.count)...], as: UTF8.self).prefix { $0.isHexDigit || $0 == "/" }
        let channels = digits.split(separator: "/").prefix(3).compactMap { channel -> Double? in
            guard (1...4).contains(channel.count), let value = UInt32(channel, radix: 16) else { return nil }
            return Double(value) / Double((1 << (4 * channel.count)) - 1)
        }
        guard channels.count == 3 else { return nil }
        let rgb = RGB(UInt8(channels[0] * 255), UInt8(channels[1] * 255), UInt8(channels[2] * 255))
        // Black text contrasts more with it than white text does: a light background.
        return rgb.contrastRatio(with: RGB.black) > rgb.contrastRatio(with: RGB.white) ? .light : .dark
    }

    /// Asks the terminal on standard input and output for its background: `COLORFGBG` first,
    /// then OSC 11, waiting at most `timeout` seconds for the answer. Call it before curses
    /// takes the terminal (it sets the terminal's modes for the query and puts them back).
    /// Nil when neither says: the caller picks its default.
    public static func detect(environment colorFGBG: String?, timeout: Double = 0.2) -> Palette.Background? {
        if let background = fromColorFGBG(colorFGBG) { return background }
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { return nil }
        return fromOSC11Answer(query(timeout: timeout))
    }

    /// Sends OSC 11 and device attributes, and returns what came back before the device
    /// attributes' answer (`ESC [ ? … c`) or the timeout.
    private static func query(timeout: Double) -> [UInt8] {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return [] }
        defer { _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        var raw = saved
        // No echo and no line editing, so the answer is not shown and arrives at once.
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return [] }
        let request = Array("\u{1B}]11;?\u{07}\u{1B}[c".utf8)
        guard request.withUnsafeBytes({ write(STDOUT_FILENO, $0.baseAddress, $0.count) }) == request.count else { return [] }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        let deadline = monotonicSeconds() + timeout
        while answer.count < 1024 {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { break }
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32((left * 1000).rounded(.up))) > 0 else { break }
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            guard count > 0 else { break }
            answer += buffer[0..<count]
            if endsWithDeviceAttributes(answer) { break }
        }
        return answer
    }

    /// Whether the bytes end with a device attributes answer, `ESC [ ?` digits and `;` then `c`.
    static func endsWithDeviceAttributes(_ bytes: [UInt8]) -> Bool {
        guard bytes.last == UInt8(ascii: "c"), let start = bytes.lastIndex(of: 0x1B) else { return false }
        let body = bytes[(start + 1)...]
        return body.starts(with: Array("[?".utf8)) && body.dropFirst(2).dropLast().allSatisfy { $0 == UInt8(ascii: ";") || (48...57).contains($0) }
    }

    private static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
