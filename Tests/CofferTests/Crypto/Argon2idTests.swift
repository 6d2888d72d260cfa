import XCTest
@testable import Coffer

final class Argon2idTests: XCTestCase {
    let cheap = PassphraseCost(operations: 1, memoryBytes: 64 * 1024)

    /// The same passphrase and salt give the same key; another salt or passphrase gives another.
    func testDeterministicAndSalted() throws {
        let salt = RandomBytes.make(16)
        let passphrase = SecureBytes(copying: Array("correct horse".utf8))
        let key = try XCTUnwrap(Argon2id.deriveKey(from: passphrase, salt: salt, cost: cheap))
        XCTAssertEqual(key.count, 32)
        XCTAssertEqual(Argon2id.deriveKey(from: passphrase, salt: salt, cost: cheap), key)
        XCTAssertNotEqual(Argon2id.deriveKey(from: passphrase, salt: RandomBytes.make(16), cost: cheap), key)
        XCTAssertNotEqual(
            Argon2id.deriveKey(from: SecureBytes(copying: Array("correct horsf".utf8)), salt: salt, cost: cheap), key)
    }

    /// Matches Argon2id v1.3 output computed independently (libsodium's crypto_pwhash called from
    /// Python through ctypes), so the stored algorithm name means what it says.
    func testKnownVector() throws {
        let salt = Array("0123456789abcdef".utf8)
        let key = try XCTUnwrap(
            Argon2id.deriveKey(from: SecureBytes(copying: Array("password".utf8)), salt: salt,
                               cost: PassphraseCost(operations: 2, memoryBytes: 65536)))
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        XCTAssertEqual(hex, Self.expectedHex)
    }

    static let expectedHex = "fb83b5711fd91df630b63677dee62ccd13ee6f0c4897d856b49542b9b1e9975b"

    /// The named costs are libsodium's, and the accepted ranges refuse absurd values.
    func testCosts() {
        XCTAssertEqual(PassphraseCost.moderate.operations, 3)
        XCTAssertEqual(PassphraseCost.moderate.memoryBytes, 256 << 20)
        XCTAssertEqual(PassphraseCost.interactive.memoryBytes, 64 << 20)
        XCTAssertEqual(PassphraseCost.sensitive.memoryBytes, 1 << 30)
        XCTAssertTrue(PassphraseCost.sensitive.isAccepted)
        XCTAssertFalse(PassphraseCost(operations: 0, memoryBytes: 65536).isAccepted)
        XCTAssertFalse(PassphraseCost(operations: 3, memoryBytes: 1 << 40).isAccepted)
    }
}
