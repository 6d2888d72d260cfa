import Foundation
import XCTest
@testable import Coffer

/// An audit entry's plaintext (docs/vault-format.md, 8.2) and its reader rules.
final class AuditEntryTests: XCTestCase {
    static let entry = AuditEntry(
        time: Date(timeIntervalSince1970: 1_800_000_000.5), program: SamplePrograms.full, frontDoor: .secretService, action: .read,
        item: .genericPassword(service: "mail", account: "ada"), decision: .noPrompter)

    /// Every field survives encoding and decoding; optional fields may be absent; names the
    /// reader does not know are kept as they are.
    func testRoundTrip() throws {
        XCTAssertEqual(try AuditEntry.decode(Self.entry.encoded), Self.entry)
        let bare = AuditEntry(time: Date(timeIntervalSince1970: 1), program: nil, frontDoor: .cli, action: .policy, decision: .open)
        XCTAssertEqual(try AuditEntry.decode(bare.encoded), bare)
        let later = AuditEntry(
            time: Date(timeIntervalSince1970: 2), program: nil, frontDoor: .init(rawValue: "ssh-agent"), action: .init(rawValue: "token"),
            item: .attributeItem(identifier: "0123"), decision: .init(rawValue: "later-2"))
        XCTAssertEqual(try AuditEntry.decode(later.encoded), later)
        XCTAssertEqual(later.action.description, "token")
    }

    /// Each rule of section 8.2, broken alone, makes the entry unreadable.
    func testDecoderEnforcesEveryRule() {
        for (rule, bytes) in RecordForgery.malformedAuditEntries {
            XCTAssertThrows(.integrityFailure, try AuditEntry.decode(bytes), rule)
        }
    }

    /// An entry that a reader would refuse cannot be appended: names outside the alphabet or too
    /// long, an invalid program, an oversized item name.
    func testValidateRefusesWhatAReaderWouldRefuse() {
        var entries: [AuditEntry] = []
        for name in ["", "Read", "read!", String(repeating: "a", count: 33)] {
            var entry = Self.entry
            entry.action = .init(rawValue: name)
            entries.append(entry)
        }
        var entry = Self.entry
        entry.item = .genericPassword(service: String(repeating: "s", count: Limits.maxNameBytes + 1), account: "a")
        entries.append(entry)
        for entry in entries {
            XCTAssertThrowsError(try entry.validate())
        }
        XCTAssertNoThrow(try Self.entry.validate())
    }
}
