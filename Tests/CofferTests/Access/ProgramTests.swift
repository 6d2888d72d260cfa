import CofferTestSupport
import XCTest
@testable import Coffer

/// A program's binary form (docs/vault-format.md, section 8): exact bytes, a round trip,
/// every malformed input refused; matching; and a description no path can forge.
final class ProgramTests: XCTestCase {
    let digest = [UInt8](repeating: 0xAB, count: 32)
    let otherDigest = [UInt8](repeating: 0xCD, count: 32)

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A field as the encoding writes it: tag, big-endian u32 length, value.
    func field(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        [tag] + withUnsafeBytes(of: UInt32(value.count).bigEndian, Array.init) + value
    }

    var full: Program {
        get throws {
            try Program(
                executablePath: bytes("/usr/bin/python3.11"), executableDigest: digest, executablePinned: true,
                script: bytes("/home/ada/sync.py"), scriptDigest: otherDigest, scriptPinned: true,
                sandboxApp: "flatpak:org.example.App", systemdUnit: "sync@daily.service")
        }
    }

    /// The encoding is the fields in tag order, each `u8 tag || u32be length || value`, flags
    /// empty; absent parts are absent fields.
    func testTheEncodingIsTheSpecifiedBytes() throws {
        XCTAssertEqual(try Program(executablePath: bytes("/bin/x")).encoded, field(0x01, bytes("/bin/x")))
        let expected = field(0x01, bytes("/usr/bin/python3.11")) + field(0x02, digest) + field(0x03, []) + field(0x04, bytes("/home/ada/sync.py"))
            + field(0x05, otherDigest) + field(0x06, []) + field(0x07, bytes("flatpak:org.example.App")) + field(0x08, bytes("sync@daily.service"))
        XCTAssertEqual(try full.encoded, expected)
    }

    /// Every shape of program reads back as itself, and its encoding is the bytes read: a path
    /// that is not UTF-8 stays its bytes.
    func testEncodingsRoundTrip() throws {
        let programs = [
            try full,
            try Program(executablePath: bytes("/usr/bin/git")),
            try Program(executablePath: bytes("/usr/bin/git"), executableDigest: digest),
            try Program(executablePath: bytes("/usr/bin/python3"), script: bytes("module:keyring.cli")),
            try Program(executablePath: bytes("/usr/lib/jvm/bin/java"), script: bytes("class:org.example.Main")),
            try Program(executablePath: bytes("/snap/x/1/bin/x"), sandboxApp: "snap:x-tool"),
            try Program(executablePath: bytes("/opt/caf") + [0xE9, 0xFF], script: bytes("/tmp/") + [0x80]),
            try Program(executablePath: bytes("/usr/bin/x (deleted)"), executableDigest: digest, executablePinned: true),
        ]
        for program in programs {
            let decoded = try XCTUnwrap(Program(encoded: program.encoded), "\(program)")
            XCTAssertEqual(decoded, program)
            XCTAssertEqual(decoded.encoded, program.encoded)
            XCTAssertEqual(Program(encoded: ArraySlice(program.encoded)), program, "any collection of bytes")
        }
    }

    /// Unknown tags, tags out of order or repeated, lengths past the end, more than 8192 bytes,
    /// no executable, digests that are not 32 bytes, flags with a value or without their
    /// digest, script digests without a script, text that is not UTF-8 or breaks its alphabet,
    /// and paths that are relative or hold NUL are all refused.
    func testMalformedEncodingsAreRefused() throws {
        let path = field(0x01, bytes("/usr/bin/git"))
        let script = field(0x04, bytes("/s.py"))
        let cases: [(String, [UInt8])] = [
            ("empty", []),
            ("no executable", field(0x02, digest)),
            ("unknown tag", path + field(0x09, [])),
            ("tag zero", field(0x00, []) + path),
            ("high tag", path + field(0x30, [])),
            ("out of order", field(0x02, digest) + path),
            ("repeated", path + path),
            ("repeated flag", path + field(0x02, digest) + field(0x03, []) + field(0x03, [])),
            ("length past the end", [0x01, 0, 0, 0, 20] + bytes("/usr/bin/git")),
            ("length of 4 GiB", [0x01, 0xFF, 0xFF, 0xFF, 0xFF] + bytes("/x")),
            ("cut in a header", path + [0x02, 0, 0]),
            ("one byte", [0x01]),
            ("short digest", path + field(0x02, Array(digest.prefix(31)))),
            ("long digest", path + field(0x02, digest + [0])),
            ("empty digest", path + field(0x02, [])),
            ("flag with a value", path + field(0x02, digest) + field(0x03, [1])),
            ("pin without digest", path + field(0x03, [])),
            ("script pin without digest", path + script + field(0x06, [])),
            ("script digest without script", path + field(0x05, digest)),
            ("short script digest", path + script + field(0x05, [1, 2])),
            ("relative executable", field(0x01, bytes("git"))),
            ("empty executable", field(0x01, [])),
            ("NUL in executable", field(0x01, bytes("/usr/bin/git") + [0] + bytes("x"))),
            ("relative script", path + field(0x04, bytes("s.py"))),
            ("empty script", path + field(0x04, [])),
            ("empty module", path + field(0x04, bytes("module:"))),
            ("NUL in script", path + field(0x04, bytes("/s") + [0])),
            ("app not UTF-8", path + field(0x07, bytes("flatpak:") + [0xFF])),
            ("app of no kind", path + field(0x07, bytes("org.example.App"))),
            ("app empty id", path + field(0x07, bytes("flatpak:"))),
            ("app with a space", path + field(0x07, bytes("flatpak:org example"))),
            ("snap upper case", path + field(0x07, bytes("snap:Firefox"))),
            ("unit not UTF-8", path + field(0x08, bytes("a") + [0xC3] + bytes(".service"))),
            ("unit not a service", path + field(0x08, bytes("session-3.scope"))),
            ("unit bare suffix", path + field(0x08, bytes(".service"))),
            ("unit with a newline", path + field(0x08, bytes("a\nb.service"))),
            ("over 8192 bytes", field(0x01, bytes("/") + [UInt8](repeating: 0x61, count: 8192 - 5))),
        ]
        for (name, bytes) in cases {
            XCTAssertNil(Program(encoded: bytes), name)
            XCTAssertThrowsError(try Program.check(bytes[...]), "the record check: \(name)")
        }
        XCTAssertNotNil(Program(encoded: field(0x01, bytes("/") + [UInt8](repeating: 0x61, count: 8192 - 6))), "exactly 8192 bytes is allowed")
    }

    /// The check every read of a record makes of its owner, which builds no program, accepts
    /// exactly the encodings the decoder accepts: valid programs of every shape, and tens of
    /// thousands of their mutations (bytes changed, cut, inserted; non-ASCII apps and units).
    func testTheRecordCheckAcceptsExactlyWhatTheDecoderAccepts() throws {
        var valid = [
            try full, try Program(executablePath: bytes("/bin/x")),
            try Program(executablePath: bytes("/usr/bin/java"), script: bytes("class:Main"), sandboxApp: "snap:my-app-2"),
            try Program(executablePath: bytes("/usr/bin/python3"), script: bytes("module:http.server"), scriptDigest: digest),
            try Program(executablePath: [0x2F, 0xFF, 0xC3, 0x28], executableDigest: otherDigest, systemdUnit: "a\\x2d@b:c_d-e.service"),
        ].map(\.encoded)
        valid.append(field(0x01, bytes("/x")) + field(0x07, bytes("flatpak:\u{e9}")))
        valid.append(field(0x01, bytes("/x")) + field(0x08, bytes("a.service\u{301}")))
        var generator = SeededGenerator(seed: 29)
        for original in valid {
            XCTAssertEqual((try? Program.check(original[...])) != nil, Program(encoded: original) != nil, "\(original)")
            for _ in 0..<5_000 {
                var mutated = original
                switch generator.next() % 3 {
                case 0 where !mutated.isEmpty: mutated[Int(generator.next() % UInt64(mutated.count))] = UInt8(truncatingIfNeeded: generator.next())
                case 1 where !mutated.isEmpty: mutated.removeLast(Int(generator.next() % UInt64(mutated.count)))
                default: mutated.insert(UInt8(truncatingIfNeeded: generator.next()), at: Int(generator.next() % UInt64(mutated.count + 1)))
                }
                let decoded = Program(encoded: mutated) != nil
                XCTAssertEqual((try? Program.check(mutated[...])) != nil, decoded, "\(mutated)")
                // Slices that do not start at index 0, as a record's fields are.
                let inRecord = ([0xAA, 0xBB] + mutated)[2...]
                XCTAssertEqual((try? Program.check(inRecord)) != nil, decoded, "\(mutated) inside a record")
            }
        }
    }

    /// The initializer refuses what the decoder refuses, with a typed error.
    func testTheInitializerRefusesWhatTheEncodingCannotHold() {
        func assertRefused(_ make: @autoclosure () throws -> Program, line: UInt = #line) {
            XCTAssertThrowsError(try make(), line: line) { error in
                guard case .invalidArgument = error as? CofferError else { return XCTFail("\(error)", line: line) }
            }
        }
        assertRefused(try Program(executablePath: bytes("git")))
        assertRefused(try Program(executablePath: bytes("/git"), executablePinned: true))
        assertRefused(try Program(executablePath: bytes("/git"), executableDigest: [1]))
        assertRefused(try Program(executablePath: bytes("/git"), scriptDigest: digest))
        assertRefused(try Program(executablePath: bytes("/git"), sandboxApp: "docker:x"))
        assertRefused(try Program(executablePath: bytes("/git"), systemdUnit: "x.scope"))
        assertRefused(try Program(executablePath: bytes("/") + [UInt8](repeating: 0x61, count: 9000)))
    }

    /// A stored program matches a caller with the same path, script, app and unit, byte for
    /// byte; a pin also needs the same digest, and a caller without a digest never meets a
    /// pin; an unpinned digest is not compared.
    func testMatching() throws {
        let git = try Program(executablePath: bytes("/usr/bin/git"), executableDigest: digest)
        let updated = try Program(executablePath: bytes("/usr/bin/git"), executableDigest: otherDigest)
        XCTAssertTrue(git.matches(updated), "unpinned: matched by path, so an update keeps access")
        XCTAssertTrue(git.pinningDigests.matches(git))
        XCTAssertFalse(git.pinningDigests.matches(updated), "pinned: another digest does not match")
        XCTAssertFalse(git.pinningDigests.matches(try Program(executablePath: bytes("/usr/bin/git"))), "no digest never meets a pin")
        XCTAssertFalse(git.matches(try Program(executablePath: bytes("/usr/local/bin/git"), executableDigest: digest)), "another path")

        let python = try Program(executablePath: bytes("/usr/bin/python3.11"))
        let script = try Program(executablePath: bytes("/usr/bin/python3.11"), script: bytes("/home/ada/a.py"), scriptDigest: digest, scriptPinned: true)
        XCTAssertFalse(python.matches(script), "the interpreter alone is not the interpreter running a script")
        XCTAssertFalse(script.matches(python))
        XCTAssertFalse(script.matches(try Program(executablePath: bytes("/usr/bin/python3.11"), script: bytes("/home/ada/a.py"), scriptDigest: otherDigest)))
        XCTAssertFalse(script.matches(try Program(executablePath: bytes("/usr/bin/python3.11"), script: bytes("/home/ada/b.py"), scriptDigest: digest)))

        let app = try Program(executablePath: bytes("/app/bin/x"), sandboxApp: "flatpak:org.example.X")
        XCTAssertFalse(app.matches(try Program(executablePath: bytes("/app/bin/x"))))
        XCTAssertFalse(app.matches(try Program(executablePath: bytes("/app/bin/x"), sandboxApp: "flatpak:org.example.Y")))
        let unit = try Program(executablePath: bytes("/usr/bin/x"), systemdUnit: "a.service")
        XCTAssertFalse(unit.matches(try Program(executablePath: bytes("/usr/bin/x"), systemdUnit: "b.service")))

        let composed = try Program(executablePath: bytes("/opt/caf") + bytes("e\u{301}"))
        let precomposed = try Program(executablePath: bytes("/opt/caf\u{E9}"))
        XCTAssertFalse(composed.matches(precomposed), "two spellings of é are two files")
        XCTAssertNotEqual(composed, precomposed)
    }

    /// The description names the parts and the pins, and escapes what could forge a prompt's
    /// line or hide text: newlines, control and format characters, bytes that are not UTF-8.
    func testTheDescriptionIsOneLineAndShowsEveryByte() throws {
        XCTAssertEqual(
            try full.description,
            "/usr/bin/python3.11 running /home/ada/sync.py in flatpak:org.example.App as sync@daily.service "
                + "(pinned: executable sha256 abababababab…, script sha256 cdcdcdcdcdcd…)")
        let forged = try Program(executablePath: bytes("/tmp/x\nAllow /usr/bin/git? \u{202E}txt.exe\\") + [0xFF, 0xC3])
        XCTAssertEqual(forged.description, "/tmp/x\\u{a}Allow /usr/bin/git? \\u{202e}txt.exe\\\\\\xff\\xc3")
        XCTAssertEqual(try Program(executablePath: bytes("/usr/bin/café")).description, "/usr/bin/café")
    }
}
