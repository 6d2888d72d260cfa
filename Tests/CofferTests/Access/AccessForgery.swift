@testable import Coffer

/// Programs, records and audit entries that each break one rule of docs/vault-format.md 5.5 or 8.2.
extension RecordForgery {
    static let path = field(0x01, Array("/usr/bin/git".utf8))
    static let digest = [UInt8](repeating: 0xAB, count: 32)

    /// One program encoding per rule of section 5.5, each breaking only that rule.
    static let malformedPrograms: [(rule: String, bytes: [UInt8])] = [
        ("no executable", field(0x04, Array("/s.py".utf8))),
        ("an empty executable", field(0x01, [])),
        ("a relative executable", field(0x01, Array("usr/bin/git".utf8))),
        ("a NUL byte in the executable", field(0x01, [0x2F, 0x00, 0x61])),
        ("a 31-byte digest", path + field(0x02, Array(digest.dropLast()))),
        ("a 33-byte script digest", path + field(0x04, [0x73]) + field(0x05, digest + [0])),
        ("a pin without a digest", path + field(0x03, [])),
        ("a pin with a value", path + field(0x02, digest) + field(0x03, [1])),
        ("a script digest without a script", path + field(0x05, digest)),
        ("a script pin without a script digest", path + field(0x04, [0x73]) + field(0x06, [])),
        ("an empty script", path + field(0x04, [])),
        ("an empty unit", path + field(0x08, [])),
        ("fields out of order", field(0x07, Array("flatpak:x".utf8)) + path),
        ("a repeated field", path + field(0x08, [0x75]) + field(0x08, [0x76])),
        ("an unknown tag", path + field(0x09, [0x78])),
        ("a field running past the end", path + [0x08, 0, 0, 0, 9, 0x75]),
        ("a truncated field header", path + [0x08, 0, 0]),
        ("more than 8192 bytes", field(0x01, Array(repeating: 0x61, count: 8192))),
    ]

    static func program(_ executable: String) -> [UInt8] { field(0x01, Array(executable.utf8)) }

    /// One record per rule on its owner and access list, each breaking only that rule.
    static let malformedAccessPlaintexts: [(rule: String, plaintext: [UInt8])] =
        malformedPrograms.map { ("an owner with \($0.rule)", plaintext(extra: field(0x30, $0.bytes))) }
        + malformedPrograms.prefix(3).map { ("an allowed program with \($0.rule)", plaintext(extra: field(0x31, $0.bytes))) }
        + [
            ("two owners", plaintext(extra: field(0x30, program("/a")) + field(0x30, program("/b")))),
            ("an unsorted access list", plaintext(extra: field(0x31, program("/b")) + field(0x31, program("/a")))),
            ("a repeated allowed program", plaintext(extra: field(0x31, program("/a")) + field(0x31, program("/a")))),
            ("an allowed program before the owner", plaintext(extra: field(0x31, program("/a")) + field(0x30, program("/b")))),
            ("more than 64 allowed programs", plaintext(extra: (0...64).map { field(0x31, program(String(format: "/p%03d", $0))) }.joined().map { $0 })),
        ]

    static let auditTime = bigEndianBytes(Int64(1_800_000_000_000))
    static func name(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A valid audit entry with `program` and `item` fields spliced in where given.
    static func auditEntry(time: [UInt8] = auditTime, program: [UInt8]? = nil, frontDoor: [UInt8] = name("agent"),
                           action: [UInt8] = name("read"), item: [UInt8]? = nil, decision: [UInt8] = name("owner")) -> [UInt8] {
        field(0x01, time) + (program.map { field(0x02, $0) } ?? []) + field(0x03, frontDoor) + field(0x04, action)
            + (item.map { field(0x05, $0) } ?? []) + field(0x06, decision)
    }

    static func itemInput(_ itemClass: UInt8, _ service: [UInt8], _ account: [UInt8]) -> [UInt8] {
        [itemClass] + bigEndianBytes(UInt32(service.count)) + service + bigEndianBytes(UInt32(account.count)) + account
    }

    /// One audit entry per rule of section 8.2, each breaking only that rule.
    static let malformedAuditEntries: [(rule: String, bytes: [UInt8])] = [
        ("a 7-byte time", auditEntry(time: Array(auditTime.prefix(7)))),
        ("no time", field(0x03, name("agent")) + field(0x04, name("read")) + field(0x06, name("owner"))),
        ("no front door", field(0x01, auditTime) + field(0x04, name("read")) + field(0x06, name("owner"))),
        ("no action", field(0x01, auditTime) + field(0x03, name("agent")) + field(0x06, name("owner"))),
        ("no decision", field(0x01, auditTime) + field(0x03, name("agent")) + field(0x04, name("read"))),
        ("an upper-case name", auditEntry(action: name("Read"))),
        ("an empty name", auditEntry(decision: [])),
        ("a 33-byte name", auditEntry(frontDoor: Array(repeating: 0x61, count: 33))),
        ("a name with a space", auditEntry(action: name("re ad"))),
        ("a malformed program", auditEntry(program: field(0x01, []))),
        ("an item of class 4", auditEntry(item: itemInput(4, name("s"), name("a")))),
        ("an attribute item with an account", auditEntry(item: itemInput(3, name("s"), name("a")))),
        ("an item whose account runs past the end", auditEntry(item: itemInput(1, name("s"), name("a")) + [0])),
        ("an item whose service runs past the end", auditEntry(item: [1, 0, 0, 0, 9, 0x73, 0, 0, 0, 0])),
        ("invalid UTF-8 in the item", auditEntry(item: itemInput(1, [0xFF], name("a")))),
        ("an oversized item service", auditEntry(item: itemInput(1, Array(repeating: 0x73, count: Limits.maxNameBytes + 1), []))),
        ("an unknown tag", auditEntry() + field(0x07, [])),
        ("fields out of order", field(0x03, name("agent")) + field(0x01, auditTime) + field(0x04, name("read")) + field(0x06, name("owner"))),
        ("a repeated field", auditEntry() + field(0x06, name("owner"))),
        ("a field running past the end", auditEntry() + [0x07, 0, 0, 0, 5]),
    ]
}
