import XCTest
@testable import Coffer

final class SecureBytesTests: XCTestCase {
    /// Copying bytes in and reading them back gives the same bytes.
    func testCopiesBytes() {
        let bytes = SecureBytes(copying: [1, 2, 3, 255])
        XCTAssertEqual(bytes.count, 4)
        XCTAssertEqual(bytes.withUnsafeBytes { Array($0) }, [1, 2, 3, 255])
    }

    /// Equality compares contents (constant-time) and lengths.
    func testEqualityComparesContents() {
        XCTAssertEqual(SecureBytes(copying: [9, 9, 9]), SecureBytes(copying: [9, 9, 9]))
        XCTAssertNotEqual(SecureBytes(copying: [9, 9, 9]), SecureBytes(copying: [9, 9, 8]))
        XCTAssertNotEqual(SecureBytes(copying: [9, 9]), SecureBytes(copying: [9, 9, 9]))
    }

    /// description, debugDescription, string interpolation and dump() never show the bytes.
    func testDescriptionsAreRedacted() {
        let secret = SecureBytes(copying: Array("topsecret".utf8))
        var dumped = ""
        dump(secret, to: &dumped)
        for text in [secret.description, secret.debugDescription, "\(secret)", String(reflecting: secret), dumped] {
            XCTAssertFalse(text.contains("topsecret"), text)
            XCTAssertFalse(text.contains("116"), "no byte values: \(text)")
        }
        XCTAssertEqual(secret.description, "SecureBytes(9 bytes, redacted)")
    }

    /// Random keys have the requested length and differ from each other.
    func testRandomKeysDiffer() {
        let first = SecureBytes.random(count: 32), second = SecureBytes.random(count: 32)
        XCTAssertEqual(first.count, 32)
        XCTAssertNotEqual(first, second)
    }

    /// Zero-length secure bytes are valid and equal to each other.
    func testEmpty() {
        let empty = SecureBytes(copying: [])
        XCTAssertEqual(empty.count, 0)
        XCTAssertEqual(empty, SecureBytes(copying: []))
    }
}
