import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// The vault's Unicode NFC (docs/vault-format.md, 5.1: names, passphrases and text fields are
/// hashed and stored in NFC) against Python's `unicodedata.normalize("NFC")`, the NFC of the
/// independent reader (Tests/CofferTests/Fixtures/read_vault.py).
///
/// Until the vault used the standard library's NFC it used Foundation's
/// `precomposedStringWithCanonicalMapping`, which is not Unicode NFC in three ways this test
/// catches: it composes a supplementary scalar by its low 16 bits (U+100041 U+0301 became
/// U+00C1, so two names were one item), leaves a Hangul LV syllable and a trailing jamo apart
/// (U+AC00 U+11A8, where NFC gives U+AC01), and orders marks newer than its tables wrongly.
final class NormalizationTests: XCTestCase {
    /// Normalizes each text with Python and with the vault, and compares. Texts with a scalar
    /// Python's Unicode tables do not know (newer than them) are left out: NFC is only stable
    /// for assigned characters.
    private func assertNormalizedAsPythonDoes(_ texts: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let program = """
            import sys, unicodedata
            for line in sys.stdin:
                text = "".join(chr(int(value, 16)) for value in line.split())
                known = all(unicodedata.category(c) != "Cn" or 0xE000 <= ord(c) <= 0xF8FF or ord(c) >= 0xF0000 for c in text)
                print(" ".join("%x" % ord(c) for c in unicodedata.normalize("NFC", text)) if known else "-")
            """
        let input = texts.map { $0.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") }.joined(separator: "\n") + "\n"
        let output = try ChildProcess.run("python3", ["-c", program], stdin: Data(input.utf8), timeout: .seconds(120))
        XCTAssertEqual(output.status, 0, output.stderrText, file: file, line: line)
        let expected = output.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(expected.count, texts.count, "Python answered every text", file: file, line: line)
        var compared = 0
        for (text, python) in zip(texts, expected) where python != "-" {
            compared += 1
            let ours = Normalization.nfc(text).unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
            XCTAssertEqual(ours, String(python), "NFC of \(text.unicodeScalars.map { String($0.value, radix: 16) })", file: file, line: line)
        }
        XCTAssertGreaterThan(compared, texts.count / 5, "Python knew the scalars of most texts", file: file, line: line)
    }

    /// The cases NFC is made of: composition, singletons, exclusions, reordering, Hangul, and
    /// the three where Foundation's differed.
    func testTheHardCasesNormalizeAsPythonDoes() throws {
        try assertNormalizedAsPythonDoes([
            "caf\u{E9}", "cafe\u{301}", "\u{212B}", "\u{2126}", "A\u{30A}", "\u{958}", "\u{FB2C}",
            "a\u{323}\u{302}", "a\u{302}\u{323}", "\u{1E0A}\u{323}", "D\u{307}\u{323}", "q\u{307}\u{323}",
            "\u{1100}\u{1161}\u{11A8}", "\u{AC00}\u{11A8}", "\u{1100}\u{1161}", "e\u{301}\u{301}", "\u{301}e",
            "\u{0FB2}\u{0F80}", "\u{1F468}\u{200D}\u{1F469}", "\u{1D15E}", "\u{2ADC}", "\u{FA10}", "\u{2F800}",
            "\u{0344}", "\u{0F73}", "\u{FF76}\u{FF9E}", "\u{1E9B}\u{323}", "\u{3A9}\u{345}\u{301}", "\u{110}\u{300}",
            "\u{100041}\u{301}", "\u{10041}\u{301}", "\u{1D400}\u{301}",
        ])
    }

    /// Every scalar alone, then followed by a combining acute, and by a cedilla and an acute.
    func testEveryScalarNormalizesAsPythonDoes() throws {
        var texts: [String] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            texts += [text, text + "\u{301}", text + "\u{327}\u{301}"]
        }
        try assertNormalizedAsPythonDoes(texts)
    }

    /// Random strings of letters, combining marks and Hangul, as names a user could type.
    func testRandomMixturesNormalizeAsPythonDoes() throws {
        var generator = SeededGenerator(seed: 0xC0FFEE)
        let pools: [ClosedRange<UInt32>] = [
            0x41...0x7A, 0xC0...0x24F, 0x300...0x36F, 0x1100...0x11FF, 0xAC00...0xD7A3, 0x1E00...0x1EFF, 0x591...0x5C7, 0x900...0x97F,
        ]
        let texts = (0..<20_000).map { _ in
            let scalars = (0..<Int.random(in: 1...8, using: &generator)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: pools.randomElement(using: &generator)!, using: &generator))
            }
            return String(String.UnicodeScalarView(scalars))
        }
        try assertNormalizedAsPythonDoes(texts)
    }

    /// ASCII stays as it is, byte for byte.
    func testASCIIIsLeftAsItIs() {
        XCTAssertEqual(Normalization.nfc("git:https://example.com"), "git:https://example.com")
        XCTAssertEqual(Normalization.nfcBytes("a\u{0}b"), [0x61, 0, 0x62])
    }
}
