import Testing
@testable import TerminalUI

@Suite("Colours: contrast, the 256-colour cube and what xterm shows")
struct PaletteTests {
    @Test("WCAG 2 contrast ratios of known pairs")
    func knownRatios() {
        #expect(abs(RGB.black.contrastRatio(with: .white) - 21) < 1e-9)
        #expect(RGB(hex: 0x777777).contrastRatio(with: .white) < 4.5)  // the usual "just fails" grey
        #expect(RGB(hex: 0x767676).contrastRatio(with: .white) >= 4.5)  // and the one that passes
        #expect(abs(RGB(hex: 0xCD0000).contrastRatio(with: .white) - RGB.white.contrastRatio(with: RGB(hex: 0xCD0000))) < 1e-12)
        #expect(abs(RGB(hex: 0x808080).relativeLuminance - 0.2158605) < 1e-6)
    }

    @Test("The cube and the grey ramp as xterm defines them")
    func indexedColours() {
        #expect(ColorDepth.indexedRGB(16) == RGB(0, 0, 0))
        #expect(ColorDepth.indexedRGB(124) == RGB(175, 0, 0))
        #expect(ColorDepth.indexedRGB(231) == RGB(255, 255, 255))
        #expect(ColorDepth.indexedRGB(232) == RGB(8, 8, 8))
        #expect(ColorDepth.indexedRGB(255) == RGB(238, 238, 238))
    }

    @Test("An exact colour is the nearest of 16–255 with 256 colours and its basic colour with eight")
    func numbers() {
        let japanRed = TerminalColor(RGB(hex: 0xBC002D), basic: .red)
        #expect(ColorDepth.indexed256.number(for: japanRed) == 124)
        #expect(ColorDepth.eight.number(for: japanRed) == 1)
        // A dark green stays green (RGB distance picks the teal #005F5F) and a blue blue
        // (CIELAB's picks the purple #5F00AF).
        #expect(ColorDepth.indexed256.number(for: TerminalColor(RGB(hex: 0x006233), basic: .green)) == 22)
        #expect(ColorDepth.indexed256.number(for: TerminalColor(RGB(hex: 0x0038A8), basic: .blue)) == 19)
        #expect(ColorDepth.indexed256.number(for: .pureWhite) == 231)
        #expect(ColorDepth.indexed256.number(for: .pureBlack) == 16)
        // Basic colours stay the terminal's own at every depth.
        for depth in ColorDepth.allCases {
            #expect(TerminalColor.basicColors.map(depth.number(for:)) == Array(0...7))
        }
        // Every colour of the cube and the ramp maps to itself.
        for number in 16...255 {
            #expect(ColorDepth.nearestIndexed(ColorDepth.indexedRGB(number)) == Int16(number))
        }
    }

    @Test("Bold brightens colours 0–7 of the text, faint takes two thirds, reverse swaps")
    func appearance() {
        let eight = Palette.xterm(.eight)
        #expect(eight.appearance(of: Style(foreground: .black, background: .white, bold: true)) == (RGB(hex: 0x7F7F7F), RGB(hex: 0xE5E5E5)))
        #expect(eight.appearance(of: Style(foreground: .white, background: .red, bold: true)) == (RGB.white, RGB(hex: 0xCD0000)))
        // With 256 colours, the cube's black stays black when bold.
        #expect(Palette.xterm(.indexed256).appearance(of: Style(foreground: .pureBlack, bold: true)).text == .black)
        #expect(eight.appearance(of: Style(dim: true)) == (RGB(170, 170, 170), RGB.black))
        #expect(Palette.xterm(.eight, background: .light).appearance(of: Style(bold: true, reverse: true)) == (RGB.white, RGB.black))
    }

    @Test("Readable text is black or white, never bold black with eight colours", arguments: ColorDepth.allCases)
    func readableText(depth: ColorDepth) {
        let palette = Palette.xterm(depth)
        let onWhite = palette.readableText(on: .white)
        #expect(onWhite.foreground == .pureBlack)
        #expect(onWhite.bold == (depth == .indexed256))
        let onBlue = palette.readableText(on: .blue)
        #expect(onBlue.foreground == .pureWhite)
        #expect(onBlue.bold)
        // Every colour a style can ask for gets at least 4.5:1.
        var backgrounds = TerminalColor.basicColors
        for number in 16...255 { backgrounds.append(TerminalColor(ColorDepth.indexedRGB(number), basic: .white)) }
        for background in backgrounds {
            let ratio = palette.contrastRatio(of: palette.readableText(on: background))
            #expect(ratio >= 4.5, "\(background) at \(depth): \(ratio)")
        }
    }
}
