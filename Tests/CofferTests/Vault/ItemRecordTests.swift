import Foundation
import XCTest
@testable import Coffer

final class ItemRecordTests: XCTestCase {
    let attributes = ItemAttributes(
        id: .internetPassword(server: "h", account: "u"), label: "l", comment: "c", custom: ["k": "v", "a": "b"],
        created: Date(timeIntervalSince1970: 1), modified: Date(timeIntervalSince1970: 2),
        expiresAt: Date(timeIntervalSince1970: 3), internet: InternetAttributes(protocol: "https", port: 65535, path: "/", authenticationType: "basic"))

    /// Encoding then decoding gives back every attribute and the secret.
    func testRoundTrip() throws {
        let encoded = ItemRecord.encode(attributes, secret: Data([9, 8, 7]))
        let decoded = try ItemRecord.decode(encoded)
        XCTAssertEqual(decoded.attributes, attributes)
        XCTAssertEqual(Array(decoded.secret), [9, 8, 7])
        XCTAssertEqual(Array(try ItemRecord.decodeSecret(encoded).secret), [9, 8, 7])
        XCTAssertEqual(try ItemRecord.decodeSecret(encoded).expiresAt, attributes.expiresAt)
    }

    /// Truncated, reordered, duplicated or unknown fields are refused as corrupt, never crash.
    func testMalformedRecordsAreRefused() {
        let valid = ItemRecord.encode(attributes, secret: Data([1]))
        let malformed = CofferError.corruptVault(reason: "malformed item record")
        var cases: [[UInt8]] = [[], [3], [1, 0x01, 0, 0, 0, 9, 65], [1, 0x02, 0, 0, 0, 1, 65, 0x01, 0, 0, 0, 1, 65]]
        // Every cut before the end of the last required field (modified, byte 45) is malformed.
        cases += (1..<45).map { Array(valid.prefix($0)) }
        cases.append(valid + [0x7F, 0, 0, 0, 0])
        cases.append(valid + [0x01, 0, 0, 0, 0])
        for bytes in cases {
            XCTAssertThrows(malformed, try ItemRecord.decode(bytes))
        }
    }

    /// Random bytes never crash the decoder.
    func testRandomInputNeverCrashes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? ItemRecord.decode([1] + bytes)
            _ = try? ItemRecord.decodeSecret([1] + bytes)
        }
    }
}
