import Glibc

/// A colour in sRGB, eight bits a channel.
public struct RGB: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// A colour written as in CSS without the `#`: `RGB(hex: 0xBC002D)`.
    public init(hex: UInt32) {
        self.init(UInt8((hex >> 16) & 0xFF), UInt8((hex >> 8) & 0xFF), UInt8(hex & 0xFF))
    }

    public static let black = RGB(0, 0, 0)
    public static let white = RGB(255, 255, 255)

    /// `#RRGGBB`.
    public var description: String {
        "#" + [red, green, blue].map { value in
            let digits = String(value, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// The relative luminance of WCAG 2: 0 for black, 1 for white.
    public var relativeLuminance: Double {
        return 0.2126 * Self.linear(red) + 0.7152 * Self.linear(green) + 0.0722 * Self.linear(blue)
    }

    /// A channel without sRGB's gamma, 0 to 1.
    private static func linear(_ channel: UInt8) -> Double {
        let value = Double(channel) / 255
        return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    /// The contrast ratio of WCAG 2 between two colours, from 1 (the same) to 21 (black and
    /// white). Text needs 4.5 to be readable at normal size (level AA).
    public func contrastRatio(with other: RGB) -> Double {
        let (a, b) = (relativeLuminance, other.relativeLuminance)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// The colour in Oklab (Björn Ottosson's perceptual space): lightness, green–red,
    /// blue–yellow, where equal distances look about equally different, blues included.
    var oklab: (lightness: Double, a: Double, b: Double) {
        let (r, g, b) = (Self.linear(red), Self.linear(green), Self.linear(blue))
        let l = cbrt(0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b)
        let m = cbrt(0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b)
        let s = cbrt(0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
        return (0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
                1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
                0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s)
    }

    /// Each channel scaled by a factor and rounded down, as a terminal dims text.
    func scaled(by factor: Double) -> RGB {
        RGB(UInt8(Double(red) * factor), UInt8(Double(green) * factor), UInt8(Double(blue) * factor))
    }
}

/// A colour as a style asks for it: one of the eight colours every colour terminal has,
/// or an exact colour that terminals with 256 colours draw as the nearest of their
/// 6×6×6 cube and grey ramp, and terminals with eight draw as a basic colour chosen for it.
public struct TerminalColor: Hashable, Sendable {
    /// The basic colour, 0 (black) to 7 (white): what a terminal with eight colours draws.
    public let basic: Int16
    /// The colour meant, for terminals with more colours; nil for a basic colour, which
    /// every terminal draws in its own shade (the user's theme).
    public let exact: RGB?

    private init(basic: Int16, exact: RGB?) {
        self.basic = basic
        self.exact = exact
    }

    /// An exact colour, drawn as `basic` (one of the eight colours) on terminals with eight.
    public init(_ exact: RGB, basic: TerminalColor) {
        self.init(basic: basic.basic, exact: exact)
    }

    public static let black = TerminalColor(basic: 0, exact: nil)
    public static let red = TerminalColor(basic: 1, exact: nil)
    public static let green = TerminalColor(basic: 2, exact: nil)
    public static let yellow = TerminalColor(basic: 3, exact: nil)
    public static let blue = TerminalColor(basic: 4, exact: nil)
    public static let magenta = TerminalColor(basic: 5, exact: nil)
    public static let cyan = TerminalColor(basic: 6, exact: nil)
    public static let white = TerminalColor(basic: 7, exact: nil)

    /// The eight basic colours, black to white.
    public static let basicColors: [TerminalColor] = [.black, .red, .green, .yellow, .blue, .magenta, .cyan, .white]

    /// Pure black: the cube's black with 256 colours (which bold does not lighten), basic
    /// black with eight.
    public static let pureBlack = TerminalColor(.black, basic: .black)
    /// Pure white: the cube's white with 256 colours, basic white with eight (which bold
    /// brightens to pure white on most terminals).
    public static let pureWhite = TerminalColor(.white, basic: .white)
}

/// How many colours a terminal draws with.
public enum ColorDepth: Hashable, Sendable, CaseIterable {
    /// The eight basic colours (bold brightens a foreground to the bright eight on most terminals).
    case eight
    /// 256 colours: the 16 of the terminal's theme, a 6×6×6 cube and a ramp of 24 greys.
    case indexed256

    /// The colour number a terminal colour is drawn with at this depth: its basic colour,
    /// or with 256 colours the nearest colour of the cube and grey ramp (16–255) to an exact
    /// one. The numbers 0–15 are left to basic colours, because each terminal (and theme)
    /// shows them differently; the cube and the ramp are the same nearly everywhere.
    public func number(for color: TerminalColor) -> Int16 {
        guard self == .indexed256, let exact = color.exact else { return color.basic }
        return Self.nearestIndexed(exact)
    }

    /// The steps of each channel of the 6×6×6 cube (xterm's, the common definition).
    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    /// The RGB of colour number 16–255 (the cube, then the greys 8, 18, ... 238).
    static func indexedRGB(_ number: Int) -> RGB {
        precondition((16...255).contains(number), "not a colour of the cube or the grey ramp")
        if number >= 232 {
            let level = UInt8(8 + 10 * (number - 232))
            return RGB(level, level, level)
        }
        let index = number - 16
        return RGB(UInt8(cubeLevels[index / 36]), UInt8(cubeLevels[(index / 6) % 6]), UInt8(cubeLevels[index % 6]))
    }

    /// The colour of 16–255 closest to `rgb` as the eye sees it: the least distance in
    /// Oklab (in RGB, or even CIELAB, a flag's blue turns purple and its dark green teal).
    static func nearestIndexed(_ rgb: RGB) -> Int16 {
        let target = rgb.oklab
        var best = 16
        var bestDistance = Double.infinity
        for number in 16...255 {
            let candidate = indexedOklab[number - 16]
            let (dl, da, db) = (target.lightness - candidate.lightness, target.a - candidate.a, target.b - candidate.b)
            let distance = dl * dl + da * da + db * db
            if distance < bestDistance {
                best = number
                bestDistance = distance
            }
        }
        return Int16(best)
    }

    /// The Oklab values of colours 16–255.
    private static let indexedOklab = (16...255).map { indexedRGB($0).oklab }
}
