import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class ItemRecordTests: XCTestCase {
    let attributes = ItemAttributes(
        id: .internetPassword(server: "h", account: "u"), label: "l", comment: "c", custom: ["k": "v", "a": "b"],
        created: Date(timeIntervalSince1970: 1), modified: Date(timeIntervalSince1970: 2),
        expiresAt: Date(timeIntervalSince1970: 3), internet: InternetAttributes(protocol: "https", port: 65535, path: "/", authenticationType: "basic"))

    /// Two records have the same index fields exactly when their items have the same indexed
    /// attributes: a new secret, label, comment, date, expiry, content type or access list
    /// leaves them as they were; a name, an internet attribute or a custom attribute changes
    /// them. A rewrite that finds them equal writes no index row (`Vault.upsert`), so a change
    /// missed here would leave the attribute index stale.
    func testIndexedFieldsChangeExactlyWithTheIndexedAttributes() throws {
        func changed(_ change: (inout ItemAttributes) -> Void) -> ItemAttributes {
            var changed = attributes
            change(&changed)
            return changed
        }
        let owner = ItemAccess(owner: try Program(executablePath: Array("/bin/x".utf8)))
        let original = ItemRecord.encode(attributes, secret: Data([1]))
        let alike: [(String, [UInt8])] = [
            ("secret", ItemRecord.encode(attributes, secret: Data([2, 3]))),
            ("label", ItemRecord.encode(changed { $0.label = "other" }, secret: Data([1]))),
            ("comment", ItemRecord.encode(changed { $0.comment = nil }, secret: Data([1]))),
            ("dates", ItemRecord.encode(changed { $0.modified = Date(timeIntervalSince1970: 9); $0.expiresAt = nil }, secret: Data([1]))),
            ("content type", ItemRecord.encode(changed { $0.contentType = "text/plain" }, secret: Data([1]))),
            ("access", ItemRecord.encode(attributes, secret: Data([1]), access: owner)),
        ]
        let different: [(String, [UInt8])] = [
            ("server", ItemRecord.encode(changed { $0.id = .internetPassword(server: "h2", account: "u") }, secret: Data([1]))),
            ("account", ItemRecord.encode(changed { $0.id = .internetPassword(server: "h", account: "u2") }, secret: Data([1]))),
            ("class", ItemRecord.encode(changed { $0.id = .genericPassword(service: "h", account: "u"); $0.internet = nil }, secret: Data([1]))),
            ("port", ItemRecord.encode(changed { $0.internet?.port = 443 }, secret: Data([1]))),
            ("no port", ItemRecord.encode(changed { $0.internet?.port = nil }, secret: Data([1]))),
            ("path", ItemRecord.encode(changed { $0.internet?.path = "/x" }, secret: Data([1]))),
            ("protocol", ItemRecord.encode(changed { $0.internet?.protocol = "http" }, secret: Data([1]))),
            ("authtype", ItemRecord.encode(changed { $0.internet?.authenticationType = nil }, secret: Data([1]))),
            ("custom value", ItemRecord.encode(changed { $0.custom["k"] = "w" }, secret: Data([1]))),
            ("custom added", ItemRecord.encode(changed { $0.custom["z"] = "" }, secret: Data([1]))),
            ("custom removed", ItemRecord.encode(changed { $0.custom["a"] = nil }, secret: Data([1]))),
        ]
        let expected = ItemRecord.indexedFields(of: original[...])
        for (name, record) in alike {
            XCTAssertEqual(ItemRecord.indexedFields(of: record[...]), expected, name)
            XCTAssertTrue(ItemRecord.hasIndexedFields(expected, record[...]), name)
            XCTAssertEqual(try ItemRecord.decode(record).indexedFields, expected, name)
        }
        for (name, record) in different {
            XCTAssertNotEqual(ItemRecord.indexedFields(of: record[...]), expected, name)
            XCTAssertFalse(ItemRecord.hasIndexedFields(expected, record[...]), name)
            XCTAssertTrue(ItemRecord.hasIndexedFields(ItemRecord.indexedFields(of: record[...]), record[...]), name)
        }
        XCTAssertFalse(ItemRecord.hasIndexedFields(expected + [0], original[...]), "a longer expectation")
        XCTAssertFalse(ItemRecord.hasIndexedFields(Array(expected.dropLast()), original[...]), "a shorter expectation")
    }

    /// Encoding then decoding gives back every attribute and the secret, and the blind-index
    /// input of the stored names.
    func testRoundTrip() throws {
        let encoded = ItemRecord.encode(attributes, secret: Data([9, 8, 7]))
        let decoded = try ItemRecord.decode(encoded)
        XCTAssertEqual(decoded.attributes, attributes)
        XCTAssertEqual(Array(decoded.secret), [9, 8, 7])
        XCTAssertEqual(decoded.indexInput, VaultFormat.blindIndexInput(attributes.id))
    }

    /// An owner and an access list (format version 3) round-trip, as the last fields of the
    /// record: a record without them is the version 2 record of the same item, and replacing
    /// them keeps every other byte.
    func testOwnerAndAccessListRoundTrip() throws {
        let access = ItemAccess(owner: SamplePrograms.full, allowed: [Program(executable: "/usr/bin/git"), Program(executable: "/usr/bin/age")])
        let encoded = ItemRecord.encode(attributes, secret: Data([9]), access: access)
        let decoded = try ItemRecord.decode(encoded)
        XCTAssertEqual(decoded.access, access)
        XCTAssertEqual(decoded.attributes, attributes)
        let unowned = ItemRecord.encode(attributes, secret: Data([9]))
        XCTAssertEqual(try ItemRecord.decode(unowned).access, .unowned)
        XCTAssertTrue(encoded.starts(with: unowned))
        XCTAssertEqual(try ItemRecord.replacingAccess(in: encoded, with: .unowned), unowned)
        XCTAssertEqual(try ItemRecord.replacingAccess(in: unowned, with: access), encoded)
    }

    /// Truncated, reordered, duplicated or unknown fields are integrity failures, never crashes.
    func testMalformedRecordsAreRefused() {
        let valid = ItemRecord.encode(attributes, secret: Data([1]))
        var cases: [[UInt8]] = [[], [3], [1, 0x01, 0, 0, 0, 9, 65], [1, 0x02, 0, 0, 0, 1, 65, 0x01, 0, 0, 0, 1, 65]]
        // Every cut before the end of the last required field (modified, byte 45) is malformed.
        cases += (1..<45).map { Array(valid.prefix($0)) }
        cases.append(valid + [0x7F, 0, 0, 0, 0])
        cases.append(valid + [0x01, 0, 0, 0, 0])
        for bytes in cases {
            XCTAssertThrows(.integrityFailure, try ItemRecord.decode(bytes))
        }
    }

    /// Every rule of docs/vault-format.md 5.3 that an independent reader found Coffer did not
    /// enforce: each plaintext below breaks one, and the one decoder refuses it.
    func testEveryMustRejectRuleIsEnforced() {
        for (rule, plaintext) in RecordForgery.malformedPlaintexts {
            XCTAssertThrows(.integrityFailure, try ItemRecord.decode(plaintext), "rule: \(rule)")
        }
        XCTAssertNoThrow(try ItemRecord.decode(RecordForgery.plaintext()), "the unbroken base record decodes")
    }

    /// Random bytes never crash the decoder.
    func testRandomInputNeverCrashes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? ItemRecord.decode([1] + bytes)
        }
    }

    /// Dates that do not fit the record's milliseconds are refused before any store writes:
    /// no crash for a date 10^16 seconds away, `.distantFuture`'s far relatives, or infinity.
    func testExpiryOutOfRangeIsInvalidArgument() {
        for seconds in [1e16, -1e16, Double(Int64.max), -Double(Int64.max), .infinity, .nan] {
            let options = ItemOptions(expiresAt: Date(timeIntervalSince1970: seconds))
            XCTAssertThrows(.invalidArgument(reason: "the expiry date is out of range"), try options.validate(for: .genericPassword))
        }
        XCTAssertNoThrow(try ItemOptions(expiresAt: Date(timeIntervalSince1970: 9e15)).validate(for: .genericPassword))
    }
}

/// Hand-made item plaintexts, and records sealed with a vault's own keys, for testing the
/// reader's rules as someone holding the vault key (or a buggy writer) could break them.
enum RecordForgery {
    static func field(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        [tag] + bigEndianBytes(UInt32(value.count)) + value
    }

    static func custom(_ name: String, _ value: String) -> [UInt8] {
        field(0x20, lengthPrefixed(Array(name.utf8)) + Array(value.utf8))
    }

    static let date = bigEndianBytes(Int64(1_700_000_000_000))

    /// A valid plaintext of class `itemClass` for (`service`, `account`), with `extra` fields
    /// spliced in after the required ones (tags 0x01–0x05).
    static func plaintext(
        itemClass: UInt8 = 1, service: String = "s", account: String = "a", secret: [UInt8] = Array("secret".utf8),
        created: [UInt8] = date, extra: [UInt8] = []
    ) -> [UInt8] {
        [itemClass] + field(0x01, Array(service.utf8)) + field(0x02, Array(account.utf8)) + field(0x03, secret)
            + field(0x04, created) + field(0x05, date) + extra
    }

    /// One plaintext per rule, each breaking only that rule.
    static let malformedPlaintexts: [(rule: String, plaintext: [UInt8])] = [
        ("a 7-byte date", plaintext(created: Array(date.prefix(7)))),
        ("a 9-byte expiry", plaintext(extra: field(0x06, date + [0]))),
        ("a 3-byte port", plaintext(itemClass: 2, extra: field(0x11, [0, 0, 80]))),
        ("invalid UTF-8 in the service", [1] + field(0x01, [0x73, 0xFF]) + field(0x02, [0x61]) + field(0x03, []) + field(0x04, date) + field(0x05, date)),
        ("invalid UTF-8 in the label", plaintext(extra: field(0x07, [0xC3]))),
        ("invalid UTF-8 in a custom value", plaintext(extra: field(0x20, lengthPrefixed(Array("k".utf8)) + [0xED, 0xA0, 0x80]))),
        ("invalid UTF-8 in a custom name", plaintext(extra: field(0x20, lengthPrefixed([0x6B, 0xFE]) + Array("v".utf8)))),
        ("invalid UTF-8 in the account", [1] + field(0x01, [0x73]) + field(0x02, [0x61, 0x80]) + field(0x03, []) + field(0x04, date) + field(0x05, date)),
        ("invalid UTF-8 in the comment", plaintext(extra: field(0x08, [0xF0, 0x28, 0x8C, 0x28]))),
        ("invalid UTF-8 in the protocol", plaintext(itemClass: 2, extra: field(0x10, [0xC0, 0xAF]))),
        ("invalid UTF-8 in the path", plaintext(itemClass: 2, extra: field(0x12, [0x2F, 0xFF]))),
        ("invalid UTF-8 in the authentication type", plaintext(itemClass: 2, extra: field(0x13, [0xE2, 0x82]))),
        ("a custom name over 256 bytes", plaintext(extra: custom(String(repeating: "n", count: Limits.maxAttributeNameBytes + 1), "v"))),
        ("more than 64 custom attributes", plaintext(extra: (0...Limits.maxCustomAttributes).map { custom(String(format: "k%03d", $0), "v") }.joined().map { $0 })),
        ("a repeated field", plaintext(extra: field(0x07, Array("l".utf8)) + field(0x07, Array("l".utf8)))),
        ("a missing required field", [1] + field(0x01, [0x73]) + field(0x02, [0x61]) + field(0x03, []) + field(0x04, date)),
        ("an attribute name running past its field", plaintext(extra: field(0x20, bigEndianBytes(UInt32(9)) + Array("ab".utf8)))),
        ("unsorted attribute names", plaintext(extra: custom("b", "1") + custom("a", "2"))),
        ("duplicate attribute names", plaintext(extra: custom("a", "1") + custom("a", "2"))),
        ("internet fields in a generic password", plaintext(itemClass: 1, extra: field(0x10, Array("https".utf8)))),
        ("an oversized service", plaintext(service: String(repeating: "s", count: Limits.maxNameBytes + 1))),
        ("an oversized label", plaintext(extra: field(0x07, Array(repeating: 0x6C, count: Limits.maxTextBytes + 1)))),
        ("an unknown tag", plaintext(extra: field(0x0A, []))),
        ("an unknown class", plaintext(itemClass: 4)),
        ("an attribute item with an account", plaintext(itemClass: 3)),
        ("internet fields in an attribute item", [3] + field(0x01, [0x73]) + field(0x02, []) + field(0x03, []) + field(0x04, date)
            + field(0x05, date) + field(0x10, Array("https".utf8))),
        ("invalid UTF-8 in the content type", plaintext(extra: field(0x09, [0x74, 0xFF]))),
        ("an oversized content type", plaintext(extra: field(0x09, Array(repeating: 0x74, count: Limits.maxTextBytes + 1)))),
    ] + malformedAccessPlaintexts
}
