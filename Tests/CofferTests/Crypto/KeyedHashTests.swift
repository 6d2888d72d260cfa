import XCTest
@testable import Coffer

final class KeyedHashTests: XCTestCase {
    /// Keyed BLAKE2b is deterministic per key, differs across keys, and gives 32 bytes.
    func testKeyedHash() {
        let key = SecureBytes.random(count: 32)
        let digest = KeyedHash.hash([1, 2, 3], key: key)
        XCTAssertEqual(digest.count, 32)
        XCTAssertEqual(KeyedHash.hash([1, 2, 3], key: key), digest)
        XCTAssertNotEqual(KeyedHash.hash([1, 2, 3], key: .random(count: 32)), digest)
        XCTAssertNotEqual(KeyedHash.hash([1, 2, 4], key: key), digest)
    }

    /// Matches BLAKE2b-256 with a key as any other implementation computes it (Python's hashlib).
    func testKnownVector() {
        let key = SecureBytes(copying: [UInt8](repeating: 0x01, count: 32))
        let hex = KeyedHash.hash(Array("coffer".utf8), key: key).map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(hex, "7f23f8933c76bfa413f803cbc03ec9beffb435e3021345fcdecd5f8acf30c5ac")
    }
}
