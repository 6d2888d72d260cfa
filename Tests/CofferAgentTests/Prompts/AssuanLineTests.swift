import CofferAgent
import XCTest

/// The Assuan reply parser (``AssuanLine``) and the command lines Coffer sends
/// (``AssuanText/command(_:_:)``), on the lines pinentry sends and on broken ones: each line is
/// read or refused with a typed error, never a crash; data lines are percent-decoded into the
/// caller's memory only, however many lines they take.
final class AssuanLineTests: XCTestCase {
    /// Memory for data lines, as the client gives it (``AssuanData``), kept across lines.
    private final class Sink {
        private let memory: UnsafeMutableRawBufferPointer
        private var data: AssuanData

        init(capacity: Int = 64) {
            memory = .allocate(byteCount: capacity, alignment: 1)
            memory.initializeMemory(as: UInt8.self, repeating: 0)
            data = AssuanData(memory)
        }

        deinit { memory.deallocate() }

        func parse(_ line: [UInt8]) throws(AssuanProtocolError) -> AssuanLine {
            let parsed = line.withUnsafeBytes { bytes in Result { () throws(AssuanProtocolError) in try AssuanLine(bytes, data: &data) } }
            return try parsed.get()
        }

        func parse(_ line: String) throws(AssuanProtocolError) -> AssuanLine { try parse(Array(line.utf8)) }

        var bytes: [UInt8] { Array(data.bytes) }
    }

    private func parse(_ line: String) throws(AssuanProtocolError) -> AssuanLine {
        try Sink().parse(line)
    }

    /// The replies pinentry gives (seen from pinentry-tty 1.2.1 here): the greeting, `OK`,
    /// `ERR` with its code (83886179 is GPG_ERR_CANCELED from source 5, pinentry), status and
    /// comment lines, `INQUIRE`.
    func testTheLinesPinentrySends() throws {
        XCTAssertEqual(try parse("OK Pleased to meet you"), .ok("Pleased to meet you"))
        XCTAssertEqual(try parse("OK"), .ok(""))
        XCTAssertEqual(try parse("OK closing connection\r"), .ok("closing connection"), "a CR before the LF is dropped")
        let cancelled = try parse("ERR 83886179 Operation cancelled <Pinentry>")
        XCTAssertEqual(cancelled, .error(AssuanError(code: 83_886_179, text: "Operation cancelled <Pinentry>")))
        guard case .error(let error) = cancelled else { return XCTFail() }
        XCTAssertEqual(error.errorCode, AssuanError.cancelled)
        XCTAssertTrue(error.isRefusal)
        XCTAssertTrue(AssuanError(code: 83_886_194, text: "").isRefusal, "not confirmed (SETNOTOK's button)")
        XCTAssertTrue(AssuanError(code: 83_886_142, text: "").isRefusal, "pinentry's own timeout")
        XCTAssertFalse(AssuanError(code: 83_918_950, text: "Inappropriate ioctl for device").isRefusal, "a failure is not a no")
        XCTAssertEqual(try parse("ERR 42"), .error(AssuanError(code: 42, text: "")))
        XCTAssertEqual(try parse("S ERROR gnome3.isatty 83918950 "), .status(keyword: "ERROR", text: "gnome3.isatty 83918950 "))
        XCTAssertEqual(try parse("S PASSWORD_FROM_CACHE"), .status(keyword: "PASSWORD_FROM_CACHE", text: ""))
        XCTAssertEqual(try parse("# a comment"), .comment)
        XCTAssertEqual(try parse("#"), .comment)
        XCTAssertEqual(try parse("INQUIRE QUALITY abc%20d"), .inquire(keyword: "QUALITY", parameters: "abc%20d"))
    }

    /// A data line is percent-decoded (`%25`, `%0A`, `%0D`, either case of hex digit) into the
    /// caller's memory, and lines add up: a passphrase split over several `D` lines comes whole.
    func testDataLinesAreDecodedAndAddUp() throws {
        let sink = Sink()
        XCTAssertEqual(try sink.parse("D s3cr%25t%0Aline%0d"), .data)
        XCTAssertEqual(sink.bytes, Array("s3cr%t\nline\r".utf8))
        XCTAssertEqual(try sink.parse("D  and more"), .data)
        XCTAssertEqual(try sink.parse("D "), .data, "an empty data line")
        XCTAssertEqual(try sink.parse("D %E2%9C%93"), .data)
        XCTAssertEqual(String(decoding: sink.bytes, as: UTF8.self), "s3cr%t\nline\r and more✓")
        let binary = Sink()
        XCTAssertEqual(try binary.parse([0x44, 0x20, 0x00, 0xFF, 0x25, 0x30, 0x30]), .data, "raw bytes and %00 pass as they are")
        XCTAssertEqual(binary.bytes, [0x00, 0xFF, 0x00])
    }

    /// Broken lines get a typed error: an unknown or malformed word, a bad escape, data past
    /// the caller's room (a refused data line adds nothing), a line over 1,000 bytes. The errors
    /// never show the line itself.
    func testBrokenLinesAreRefused() {
        for line in ["", "HELLO", "ok", "OKAY", "ERR", "ERR x", "ERR -1 no", "D", "Dsecret", "S", "INQUIRE", " OK", "END"] {
            XCTAssertThrowsError(try parse(line), line) { XCTAssertEqual($0 as? AssuanProtocolError, .malformed, line) }
        }
        for line in ["D %", "D %4", "D %4G", "D %%41", "D abc%zz"] {
            XCTAssertThrowsError(try parse(line), line) { XCTAssertEqual($0 as? AssuanProtocolError, .badEscape, line) }
        }
        let sink = Sink(capacity: 8)
        XCTAssertEqual(try? sink.parse("D abc"), .data)
        XCTAssertThrowsError(try sink.parse("D defghij")) { XCTAssertEqual($0 as? AssuanProtocolError, .dataTooLong) }
        XCTAssertThrowsError(try sink.parse("D de%zz")) { XCTAssertEqual($0 as? AssuanProtocolError, .badEscape) }
        XCTAssertEqual(sink.bytes, Array("abc".utf8), "a refused data line adds none of its bytes")
        XCTAssertThrowsError(try parse("OK " + String(repeating: "x", count: 998))) { XCTAssertEqual($0 as? AssuanProtocolError, .lineTooLong) }
        XCTAssertEqual(try? parse("OK " + String(repeating: "x", count: 997)), .ok(String(repeating: "x", count: 997)), "1,000 bytes is the limit")
        XCTAssertFalse("\(AssuanProtocolError.badEscape)\(AssuanProtocolError.malformed)".contains("secret"))
    }

    /// Every line of random bytes is read or refused with a typed error, and a data line never
    /// writes past the caller's memory (the fuzz target `assuan-reply` does the same under libFuzzer).
    func testRandomLinesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("OKERRDSINQUIRE# %0aAfF9\r".utf8) + [0, 0xFF, 0x80]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            var line = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            if Bool.random(using: &generator) { line = Array(["OK ", "ERR ", "D ", "S ", "INQUIRE "].randomElement()!.utf8) + line }
            let sink = Sink(capacity: 8)
            _ = try? sink.parse(line)
            XCTAssertLessThanOrEqual(sink.bytes.count, 8)
        }
    }

    /// Commands escape `%`, line breaks and every other control as `%XX` (pinentry decodes any),
    /// keep other characters as UTF-8, and never exceed Assuan's 1,000-byte line: a longer
    /// argument is cut at a character's end and ends with `…`.
    func testCommandsAreEscapedAndFitALine() {
        XCTAssertEqual(String(decoding: AssuanText.command("GETPIN"), as: UTF8.self), "GETPIN\n")
        XCTAssertEqual(
            String(decoding: AssuanText.command("SETDESC", "100% sure\nline two\r\u{1B}[31m\u{7F} ✓"), as: UTF8.self),
            "SETDESC 100%25 sure%0Aline two%0D%1B[31m%7F ✓\n")
        let exact = AssuanText.command("SETDESC", String(repeating: "a", count: 992))
        XCTAssertEqual(exact.count, 1001, "1,000 bytes and the line feed")
        XCTAssertFalse(String(decoding: exact, as: UTF8.self).contains("…"))
        for filler in ["é", "%", "✓", "ab"] {
            let line = AssuanText.command("SETDESC", String(repeating: filler, count: 2000))
            XCTAssertLessThanOrEqual(line.count, 1001, filler)
            let text = String(decoding: line, as: UTF8.self)
            XCTAssertTrue(text.hasSuffix("…\n"), filler)
            XCTAssertFalse(text.contains("\u{FFFD}"), "cut at a character's end: \(filler)")
            XCTAssertFalse(text.dropLast(2).hasSuffix("%") || text.dropLast(2).hasSuffix("%2"), "never inside an escape")
        }
    }
}
