import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// A program's encoding (docs/vault-format.md, 5.5), its reader rules and how it matches a caller.
final class ProgramTests: XCTestCase {
    static let digest = [UInt8](repeating: 0xAB, count: 32)
    static let other = [UInt8](repeating: 0xCD, count: 32)

    static let full = Program(
        executable: "/usr/bin/python3.11", executableDigest: digest, executablePinned: false,
        script: "/home/ada/bin/sync.py", scriptDigest: other, scriptPinned: true,
        sandboxApp: "flatpak:org.example.App", unit: "sync.service")

    /// Every field survives encoding and decoding, and the encoding is the documented one: fields
    /// in tag order, text as UTF-8, flags as empty fields.
    func testEncodingRoundTrip() throws {
        let full = Self.full
        XCTAssertEqual(Program(encoded: full.encoded), full)
        let minimal = Program(executable: "/usr/bin/git")
        XCTAssertEqual(minimal.encoded, RecordForgery.field(0x01, Array("/usr/bin/git".utf8)))
        XCTAssertEqual(Program(encoded: minimal.encoded), minimal)
        let pinned = Program(executable: "/b", executableDigest: Self.digest, executablePinned: true)
        XCTAssertEqual(pinned.encoded, RecordForgery.field(1, Array("/b".utf8)) + RecordForgery.field(2, Self.digest) + RecordForgery.field(3, []))
        XCTAssertEqual(Program(encoded: pinned.encoded), pinned)
    }

    /// Each rule of section 5.5, broken alone, makes the encoding unreadable.
    func testDecoderEnforcesEveryRule() {
        for (rule, bytes) in RecordForgery.malformedPrograms {
            XCTAssertNil(Program(encoded: bytes), rule)
        }
    }

    /// A program that would encode to bytes a reader refuses cannot be stored.
    func testValidateRefusesWhatAReaderWouldRefuse() {
        for program in [
            Program(executable: ""), Program(executable: "/b", executableDigest: [1]), Program(executable: "/b", executablePinned: true),
            Program(executable: "/b", scriptDigest: Self.digest), Program(executable: String(repeating: "x", count: Program.maxEncodedBytes)),
            Program(executable: "/b", unit: ""),
        ] {
            XCTAssertThrowsError(try program.validate(), "\(program)") { error in
                guard case .invalidArgument = error as? CofferError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertNoThrow(try Self.full.validate())
    }

    /// A stored program matches a caller with the same executable, script, app and unit; a pin
    /// also demands the same digest, and an unpinned digest is not compared.
    func testMatching() {
        let stored = Program(executable: "/usr/bin/python3", executableDigest: Self.digest, script: "/s.py", scriptDigest: Self.digest, scriptPinned: true)
        var caller = stored
        caller.executableDigest = Self.other
        XCTAssertTrue(stored.matches(caller), "an unpinned executable digest is not compared")
        caller.scriptDigest = Self.other
        XCTAssertFalse(stored.matches(caller), "the pinned script changed")
        caller.scriptDigest = Self.digest
        for changed in [\Program.script, \.sandboxApp, \.unit] {
            var different = caller
            different[keyPath: changed] = "other"
            XCTAssertFalse(stored.matches(different), "\(changed)")
        }
        caller.executable = "/usr/bin/python3.11"
        XCTAssertFalse(stored.matches(caller))
    }

    /// The description names the parts and the pins, never a digest.
    func testDescription() {
        XCTAssertEqual(Self.full.description, "/usr/bin/python3.11, script /home/ada/bin/sync.py (pinned), app flatpak:org.example.App, unit sync.service")
    }

    /// This process's program is its executable as /proc/self/exe names it; when the user can
    /// modify the file (the test runner's own build), with the file's SHA-256, pinned
    /// (docs/security.md).
    func testCurrentProgram() throws {
        let current = try XCTUnwrap(Program.current())
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        XCTAssertEqual(current.executable, path)
        XCTAssertTrue(Program.userCanModify(path), "the build belongs to the user running the tests")
        XCTAssertEqual(current.executableDigest, Program.fileDigest(path))
        XCTAssertTrue(current.executablePinned)
        XCTAssertNil(current.script)
        XCTAssertNoThrow(try current.validate())
    }

    /// The digest is the file's SHA-256 (FIPS 180-2's "abc" vector), and a file the user owns
    /// counts as one the user can modify.
    func testFileDigestAndModifiability() throws {
        let folder = TemporaryFolder()
        let file = folder.file("abc")
        try Data("abc".utf8).write(to: file)
        XCTAssertEqual(Program.fileDigest(file.path).map { $0.map { String(format: "%02x", $0) }.joined() },
                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertNil(Program.fileDigest(folder.file("missing").path))
        XCTAssertTrue(Program.userCanModify(file.path))
    }
}
