import XCTest
@testable import Coffer

final class KeyDerivationTests: XCTestCase {
    /// Subkeys are deterministic, and differ by id and by context.
    func testSubkeysAreIndependent() {
        let master = SecureBytes.random(count: 32)
        let first = KeyDerivation.subkey(1, context: "CofferV1", from: master)
        XCTAssertEqual(KeyDerivation.subkey(1, context: "CofferV1", from: master), first)
        XCTAssertNotEqual(KeyDerivation.subkey(2, context: "CofferV1", from: master), first)
        XCTAssertNotEqual(KeyDerivation.subkey(1, context: "CofferV2", from: master), first)
        XCTAssertEqual(KeyDerivation.subkey(3, context: "CofferV1", from: master, length: 16).count, 16)
    }

    /// Matches crypto_kdf as specified (BLAKE2b with salt = id, personal = context), computed
    /// independently with Python's hashlib, as docs/vault-format.md tells other implementations to.
    func testKnownVector() {
        let master = SecureBytes(copying: [UInt8](repeating: 0x02, count: 32))
        let hex = KeyDerivation.subkey(1, context: "CofferV1", from: master).withUnsafeBytes {
            $0.map { String(format: "%02x", $0) }.joined()
        }
        XCTAssertEqual(hex, "352efe4f362626e697f3cd2b720bdf4d65605d42ed5a32d0820d2d5a84a1fca5")
    }
}
