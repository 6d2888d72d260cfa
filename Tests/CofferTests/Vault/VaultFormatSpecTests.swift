import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// docs/vault-format.md is exact enough for another implementation: an independent Python
/// reader (Fixtures/read_vault.py, written from the document, using only sqlite3, hashlib and
/// libsodium through ctypes) reads what Coffer writes, item for item.
final class VaultFormatSpecTests: XCTestCase {
    let folder = TemporaryFolder()
    let reader = VaultFixtureTests.fixtures.appendingPathComponent("read_vault.py")

    struct Dump: Decodable {
        struct Entry: Decodable, Equatable {
            let `class`: String, service: String, account: String, secret: String
            let created: Int64, modified: Int64, expires: Int64?
            let label: String?, comment: String?, attributes: [String: String]
            let `protocol`: String?, port: Int?, path: String?, authenticationType: String?
            let contentType: String?
            var owner: ProgramJSON? = nil
            var allowed: [ProgramJSON]? = nil
        }
        /// A program as the reader prints it (docs/vault-format.md, 5.5): digests in hex, pins only when set.
        struct ProgramJSON: Decodable, Equatable {
            let executable: String
            var executableDigest: String? = nil, executablePinned: Bool? = nil
            var script: String? = nil, scriptDigest: String? = nil, scriptPinned: Bool? = nil
            var sandboxApp: String? = nil, unit: String? = nil

            init(executable: String, executableDigest: String? = nil, executablePinned: Bool? = nil, script: String? = nil,
                 scriptDigest: String? = nil, scriptPinned: Bool? = nil, sandboxApp: String? = nil, unit: String? = nil) {
                (self.executable, self.executableDigest, self.executablePinned, self.script) = (executable, executableDigest, executablePinned, script)
                (self.scriptDigest, self.scriptPinned, self.sandboxApp, self.unit) = (scriptDigest, scriptPinned, sandboxApp, unit)
            }

            init(_ program: Program) {
                let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
                self.init(
                    executable: program.executable, executableDigest: program.executableDigest.map(hex),
                    executablePinned: program.executablePinned ? true : nil, script: program.script.map { String(decoding: $0, as: UTF8.self) },
                    scriptDigest: program.scriptDigest.map(hex), scriptPinned: program.scriptPinned ? true : nil,
                    sandboxApp: program.sandboxApp, unit: program.unit)
            }
        }
        /// An audit entry as the reader prints it (section 8.2).
        struct AuditJSON: Decodable, Equatable {
            struct ItemJSON: Decodable, Equatable { let `class`: String, service: String, account: String }
            let time: Int64, frontDoor: String, action: String, decision: String, sequence: Int64
            let program: ProgramJSON?, item: ItemJSON?
        }
        let items: [Entry]
        let unreadable: Int
        let version: Int
        let policy: String
        let audit: [AuditJSON]
        let auditUnreadable: Int
    }

    static let classNames = ["genericPassword", "internetPassword", "attributeItem"]

    private func readWithPython(_ vault: URL, _ arguments: [String] = [], passphrase: String? = nil) throws -> Dump {
        let outcome = try runPython(vault, arguments, passphrase: passphrase)
        XCTAssertEqual(outcome.status, 0, outcome.stderrText)
        return try JSONDecoder().decode(Dump.self, from: outcome.stdout)
    }

    private func runPython(_ vault: URL, _ arguments: [String] = [], passphrase: String? = nil) throws -> ChildProcess.Output {
        try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", reader.path, vault.path] + arguments,
            stdin: Data((passphrase ?? "").utf8))
    }

    /// What Coffer itself reads, in the reader's shape, for comparison.
    private func readWithCoffer(_ vault: Vault) throws -> [Dump.Entry] {
        try vault.storedItems(matching: .all).map { stored in
            let attributes = stored.attributes
            let item = try XCTUnwrap(try vault.item(for: attributes.id))
            var entry = Dump.Entry(
                class: Self.classNames[Int(attributes.id.itemClass.rawValue) - 1],
                service: attributes.id.service, account: attributes.id.account, secret: item.secret.base64EncodedString(),
                created: ItemRecord.milliseconds(attributes.created)!, modified: ItemRecord.milliseconds(attributes.modified)!,
                expires: attributes.expiresAt.flatMap(ItemRecord.milliseconds), label: attributes.label, comment: attributes.comment,
                attributes: attributes.custom, protocol: attributes.internet?.protocol, port: attributes.internet?.port,
                path: attributes.internet?.path, authenticationType: attributes.internet?.authenticationType,
                contentType: attributes.contentType)
            entry.owner = stored.access.owner.map(Dump.ProgramJSON.init)
            entry.allowed = stored.access.allowed.isEmpty ? nil : stored.access.allowed.map(Dump.ProgramJSON.init)
            return entry
        }.sorted { ($0.class, $0.service, $0.account) < ($1.class, $1.service, $1.account) }
    }

    /// The Python reader opens the committed fixture with the passphrase and with the key file and
    /// sees exactly what Coffer sees.
    func testPythonReadsFixture() throws {
        let copy = try VaultFixtureTests.copyFixture(into: folder)
        let expected = try readWithCoffer(try Vault.open(at: copy.vault, unlock: .keyFile(copy.key)))
        XCTAssertEqual(expected.count, 6)
        XCTAssertEqual(try readWithPython(copy.vault, passphrase: "coffer fixture v1").items, expected)
        XCTAssertEqual(try readWithPython(copy.vault, ["--keyfile", copy.key.path]).items, expected)
    }

    /// The Python reader reads a fresh vault after replaces, removals, a passphrase change and a
    /// key rotation, including NFD names, binary secrets and a tampered record it must reject.
    func testPythonReadsFreshVault() throws {
        let vault = try folder.makeVault()
        try vault.set(Data([0, 1, 2, 255]), for: .genericPassword(service: "cafe\u{301}", account: "Zoë"),
                      options: ItemOptions(label: "e\u{301}", custom: ["b": "2", "a": "1"]))
        try vault.set(Data("x".utf8), for: .internetPassword(server: "h", account: "u"),
                      options: ItemOptions(internet: InternetAttributes(protocol: "ssh", port: 22)))
        try vault.set(Data("y".utf8), for: .genericPassword(service: "gone", account: "u"))
        try vault.remove(.genericPassword(service: "gone", account: "u"))
        try vault.set(Data("z".utf8), for: .genericPassword(service: "s", account: "later"),
                      options: ItemOptions(expiresAt: Date().addingTimeInterval(3600)))
        try vault.changePassphrase(from: testPassphrase, to: "another passphrase")
        try vault.rotateVaultKey(credentials: [.passphrase("another passphrase")])

        let dump = try readWithPython(folder.file("test.vault"), passphrase: "another passphrase")
        XCTAssertEqual(dump.items, try readWithCoffer(vault))
        XCTAssertEqual(dump.items.first { $0.account == "Zoë" }?.service, "caf\u{E9}")
        XCTAssertEqual(dump.unreadable, 0)

        let raw = try RawVaultFile(folder.file("test.vault"))
        var row = try XCTUnwrap(raw.items().first)
        row.record[row.record.count - 1] ^= 1
        try raw.setRecord(row.record, at: row.rowKey)
        XCTAssertEqual(try readWithPython(folder.file("test.vault"), passphrase: "another passphrase").unreadable, 1)
    }

    /// Every number in section 2 of docs/vault-format.md (application id in decimal and hex,
    /// format version, file mode) is what a fresh vault holds: the document is read here, so a
    /// wrong number in it fails this test (it once gave "CONR" where every vault holds "COFR").
    func testSection2NumbersMatchAFreshVault() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try String(contentsOf: repository.appendingPathComponent("docs/vault-format.md"), encoding: .utf8)
        let section = try XCTUnwrap(document.components(separatedBy: "## 2. ").dropFirst().first?.components(separatedBy: "\n## ").first)
        func row(_ name: String) throws -> String {
            try XCTUnwrap(section.split(separator: "\n").first { $0.hasPrefix("| `\(name)`") || $0.hasPrefix("| \(name)") }.map(String.init), name)
        }
        func numbers(in line: String) -> [String] {
            line.split(whereSeparator: { !($0.isHexDigit || $0 == "x") }).map(String.init).filter { $0.first?.isNumber == true }
        }
        _ = try folder.makeVault()
        let raw = try RawVaultFile(folder.file("test.vault"))
        let applicationID = try XCTUnwrap(try raw.rows("PRAGMA application_id").first?.first as? Int64)

        let idNumbers = numbers(in: try row("PRAGMA application_id"))
        XCTAssertEqual(idNumbers.count, 2, "the decimal and the hex value")
        XCTAssertEqual(Int64(idNumbers[0]), applicationID, "decimal application_id")
        XCTAssertEqual(Int64(idNumbers[1].dropFirst(2), radix: 16), applicationID, "hex application_id")
        XCTAssertTrue(try row("PRAGMA application_id").contains("`COFR`"))
        XCTAssertEqual(String(decoding: withUnsafeBytes(of: UInt32(applicationID).bigEndian) { Array($0) }, as: UTF8.self), "COFR")

        XCTAssertEqual(numbers(in: try row("PRAGMA user_version")).map { Int64($0) }, [try raw.rows("PRAGMA user_version").first?.first as? Int64])
        let mode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: folder.file("test.vault").path)[.posixPermissions] as? Int)
        XCTAssertEqual(numbers(in: try row("file mode")).first.flatMap { Int($0, radix: 8) }, mode)
        XCTAssertTrue(try row("journal mode").contains("WAL"))

        // The header bytes the document names, read from the file itself.
        let header = Array(try Data(contentsOf: folder.file("test.vault")).prefix(100))
        XCTAssertTrue(try row("journal mode").contains("bytes 18 and 19 are `2`"))
        XCTAssertEqual([header[18], header[19]], [2, 2], "WAL in the header")
        XCTAssertTrue(document.contains("`application_id` (bytes 68–71, big-endian)") && document.contains("`user_version` (bytes 60–63)"))
        XCTAssertEqual(header[68..<72].reduce(0) { $0 << 8 | Int64($1) }, applicationID)
        XCTAssertEqual(header[60..<64].reduce(0) { $0 << 8 | Int64($1) }, 3)

        // The byte sizes in the schema's comments, against a vault with a passphrase slot and an item.
        let vault = try Vault.open(at: folder.file("test.vault"), unlock: .passphrase(testPassphrase), configuration: .test())
        try vault.set(Data("v".utf8), for: .genericPassword(service: "s", account: "a"))
        for (column, table) in [
            ("vault_id", "vault"), ("key_check", "vault"), ("salt", "key_slots"), ("wrapped_key", "key_slots"), ("row_key", "items"),
            ("token", "attribute_index"), ("policy", "access_settings"),
        ] {
            let comment = try XCTUnwrap(section.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(column + " ") }, column)
            let documented = try XCTUnwrap(comment.split(separator: "--").last.flatMap { numbers(in: String($0)).first }.flatMap { Int64($0) }, column)
            let lengths = try raw.rows("SELECT DISTINCT length(\(column)) FROM \(table)").compactMap { $0.first as? Int64 }
            XCTAssertEqual(lengths, [documented], "\(table).\(column)")
        }
    }

    /// Records are not padded (docs/security.md says their sizes are exact): a record is its
    /// plaintext plus 40 bytes (24 of nonce, 16 of tag), so 1000 more bytes of secret make the
    /// record exactly 1000 bytes longer.
    func testRecordSizesAreExact() throws {
        let vault = try folder.makeVault()
        try vault.set(Data(repeating: 0x61, count: 10), for: .genericPassword(service: "s", account: "a"))
        try vault.set(Data(repeating: 0x61, count: 1010), for: .genericPassword(service: "s", account: "b"))
        let sizes = try RawVaultFile(folder.file("test.vault")).rows("SELECT length(record) FROM items").compactMap { $0.first as? Int64 }
        XCTAssertEqual(sizes.count, 2)
        XCTAssertEqual(sizes.max()! - sizes.min()!, 1000)
        XCTAssertGreaterThan(sizes.min()!, 40 + 10)
    }

    /// The file carries the documented application id and format version.
    func testHeader() throws {
        _ = try folder.makeVault()
        let raw = try RawVaultFile(folder.file("test.vault"))
        XCTAssertEqual(try raw.rows("PRAGMA application_id").first?.first as? Int64, 0x434F_4652)
        XCTAssertEqual(try raw.rows("PRAGMA user_version").first?.first as? Int64, 3)
        XCTAssertEqual(try raw.rows("PRAGMA journal_mode").first?.first as? String, "wal")
        XCTAssertEqual(try raw.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").map { $0[0] as? String },
                       ["access_settings", "attribute_index", "audit_log", "items", "key_slots", "vault"])
        XCTAssertEqual(try raw.rows("SELECT name FROM sqlite_schema WHERE type = 'index' ORDER BY name").map { $0[0] as? String },
                       ["attribute_index_by_row"])
    }

    /// Version 2 as the reader sees it: attribute items and content types read back, and a search
    /// through the attribute index (section 5.4, computed by the reader from the document) finds
    /// exactly the items Coffer's own indexed search finds, including names in NFD, a custom
    /// attribute that a class's name overrides, and an internet password's port.
    func testPythonSearchesTheAttributeIndex() throws {
        let vault = try folder.makeVault()
        let docker = ItemID.newAttributeItem()
        try vault.set(Data("tok".utf8), for: docker, options: ItemOptions(
            label: "Registry", custom: ["server": "https://registry.example", "username": "ada", "docker_cli": "1"], contentType: "text/plain"))
        try vault.set(Data("pw".utf8), for: .genericPassword(service: "cafe\u{301}", account: "ada"),
                      options: ItemOptions(custom: ["xdg:schema": "org.freedesktop.Secret.Generic", "service": "shadowed"]))
        try vault.set(Data("pw2".utf8), for: .genericPassword(service: "other", account: "ada"),
                      options: ItemOptions(custom: ["xdg:schema": "org.freedesktop.Secret.Generic"]))
        try vault.set(Data("h".utf8), for: .internetPassword(server: "git.example", account: "ada"),
                      options: ItemOptions(internet: InternetAttributes(protocol: "https", port: 443)))

        let all = try readWithPython(folder.file("test.vault"), passphrase: testPassphrase)
        XCTAssertEqual(all.version, 3)
        XCTAssertEqual(all.items, try readWithCoffer(vault))
        XCTAssertEqual(all.items.first { $0.class == "attributeItem" }?.contentType, "text/plain")

        for query in [
            ["docker_cli": "1"], ["username": "ada"], ["service": "caf\u{E9}"], ["service": "shadowed"],
            ["xdg:schema": "org.freedesktop.Secret.Generic", "username": "ada"], ["server": "git.example", "port": "443"],
            ["server": "https://registry.example", "username": "ada"], ["nothing": "here"],
        ] {
            let python = try readWithPython(
                folder.file("test.vault"), ["--search"] + query.map { "\($0.key)=\($0.value)" }, passphrase: testPassphrase)
            let coffer = try vault.storedItems(withAttributes: query).map { "\($0.attributes.id.service)|\($0.attributes.id.account)" }
            XCTAssertEqual(python.items.map { "\($0.service)|\($0.account)" }.sorted(), coffer.sorted(), "\(query)")
        }
        XCTAssertEqual(try vault.storedItems(withAttributes: ["username": "ada"]).count, 3)
        XCTAssertEqual(try vault.storedItems(withAttributes: ["service": "shadowed"]).count, 0, "the class's name wins")
    }

    /// The committed version 1 fixture, migrated by its first write: the Python reader sees
    /// version 2, the same items, and finds them through the index the migration built.
    func testPythonReadsMigratedFixture() throws {
        let copy = try VaultFixtureTests.copyFixture(into: folder)
        let vault = try Vault.open(at: copy.vault, unlock: .keyFile(copy.key))
        XCTAssertEqual(try readWithPython(copy.vault, ["--keyfile", copy.key.path]).version, 1)
        try vault.set(Data("added".utf8), for: .genericPassword(service: "new", account: "item"))
        let dump = try readWithPython(copy.vault, ["--keyfile", copy.key.path])
        XCTAssertEqual(dump.version, 3)
        XCTAssertEqual(dump.policy, "open")
        XCTAssertEqual(dump.items, try readWithCoffer(vault))
        let found = try readWithPython(copy.vault, ["--keyfile", copy.key.path, "--search", "env=prod"])
        XCTAssertEqual(found.items.map(\.service), ["com.example.mail"])
    }

    /// Version 3 as the reader sees it: every item's owner and access list (digests, pins,
    /// scripts, apps, units), the policy and the audit log (newest first, with each entry's
    /// program and item) are what Coffer reads; and after a rotation they still are.
    func testPythonReadsOwnersPolicyAndAuditLog() throws {
        let vault = try folder.makeVault()
        let mail = ItemID.genericPassword(service: "mail", account: "ada")
        let docker = ItemID.newAttributeItem()
        try vault.set(Data("pw".utf8), for: mail, options: ItemOptions(custom: ["team": "blue"]), owner: SamplePrograms.full)
        try vault.grant(Program(executable: "/usr/bin/git"), to: mail)
        try vault.grant(Program(executable: "/usr/bin/python3", executableDigest: SamplePrograms.digest, executablePinned: true, script: "module:backup"), to: mail)
        try vault.set(Data("tok".utf8), for: docker, owner: Program(executable: "/usr/bin/docker-credential-coffer"))
        try vault.forgeRecord(RecordForgery.plaintext(service: "old", account: "item"), for: .genericPassword(service: "old", account: "item"))
        try vault.setAccessPolicy(.strict)
        let entries = [
            AuditEntry(time: Date(timeIntervalSince1970: 1_800_000_000.5), program: SamplePrograms.full, frontDoor: .secretService,
                       action: .read, item: mail, decision: .allowed),
            AuditEntry(time: Date(timeIntervalSince1970: 1_800_000_001), program: nil, frontDoor: .cli, action: .policy, decision: .open),
            AuditEntry(time: Date(timeIntervalSince1970: 1_800_000_002), program: Program(executable: "/x"), frontDoor: .agent,
                       action: .read, item: docker, decision: .timedOut),
        ]
        for entry in entries { try vault.appendAudit(entry) }

        func check(_ passphrase: String, _ what: String) throws {
            let dump = try readWithPython(folder.file("test.vault"), passphrase: passphrase)
            XCTAssertEqual(dump.version, 3, what)
            XCTAssertEqual(dump.items, try readWithCoffer(vault), what)
            XCTAssertEqual(dump.items.first { $0.service == "mail" }?.allowed?.count, 2, what)
            XCTAssertNil(dump.items.first { $0.service == "old" }?.owner, what)
            XCTAssertEqual(dump.policy, "strict", what)
            XCTAssertEqual(dump.auditUnreadable, 0, what)
            let coffer = try vault.auditLog().enumerated().map { index, entry in
                Dump.AuditJSON(
                    time: ItemRecord.milliseconds(entry.time)!, frontDoor: entry.frontDoor.rawValue, action: entry.action.rawValue,
                    decision: entry.decision.rawValue, sequence: Int64(entries.count - index), program: entry.program.map(Dump.ProgramJSON.init),
                    item: entry.item.map { .init(class: Self.classNames[Int($0.itemClass.rawValue) - 1], service: $0.service, account: $0.account) })
            }
            XCTAssertEqual(dump.audit, coffer, what)
            XCTAssertEqual(dump.audit.map(\.decision), ["timed-out", "open", "allowed"], what)
        }
        try check(testPassphrase, "fresh")
        try vault.rotateVaultKey(credentials: [.passphrase(testPassphrase)])
        try check(testPassphrase, "rotated")
    }

    /// The reader enforces the version 3 rules as Coffer does: swapped audit entries are
    /// unreadable to both, and a vault without its policy row is refused before any key is used.
    func testPythonRefusesWhatCofferRefuses() throws {
        let vault = try folder.makeVault()
        for second in 0..<3 {
            try vault.appendAudit(AuditEntry(time: Date(timeIntervalSince1970: Double(second)), program: nil, frontDoor: .agent, action: .list, decision: .open))
        }
        let raw = try RawVaultFile(folder.file("test.vault"))
        try raw.execute("UPDATE audit_log SET sequence = -sequence WHERE sequence IN (1, 2)")
        try raw.execute("UPDATE audit_log SET sequence = 3 + sequence WHERE sequence < 0")
        XCTAssertEqual(try readWithPython(folder.file("test.vault"), passphrase: testPassphrase).auditUnreadable, 2)
        XCTAssertEqual(try vault.auditLog().count, 1)

        try raw.execute("DELETE FROM access_settings")
        let outcome = try runPython(folder.file("test.vault"), passphrase: testPassphrase)
        XCTAssertNotEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stderrText.contains("the access policy is missing"), outcome.stderrText)
        XCTAssertThrows(.corruptVault(reason: "the access policy is missing or damaged"), try Vault.open(at: self.folder.file("test.vault"), configuration: .test()))
    }

    /// The committed version 2 fixture as the reader sees it, as it is (version 2, policy open,
    /// no owners) and after Coffer's first write migrated it (version 3, the same items, the new
    /// one owned).
    func testPythonReadsVersion2FixtureAndItsMigration() throws {
        let copy = try VaultFixtureV2Tests.copyFixture(into: folder)
        let vault = try Vault.open(at: copy, unlock: .passphrase(VaultFixtureV2Tests.passphrase))
        let before = try readWithPython(copy, passphrase: VaultFixtureV2Tests.passphrase)
        XCTAssertEqual(before.version, 2)
        XCTAssertEqual(before.policy, "open")
        XCTAssertEqual(before.items, try readWithCoffer(vault))
        XCTAssertEqual(before.items.count, 6)
        XCTAssertTrue(before.items.allSatisfy { $0.owner == nil })

        try vault.set(Data("added".utf8), for: .genericPassword(service: "new", account: "item"))
        let after = try readWithPython(copy, passphrase: VaultFixtureV2Tests.passphrase)
        XCTAssertEqual(after.version, 3)
        XCTAssertEqual(after.policy, "open")
        XCTAssertEqual(after.items, try readWithCoffer(vault))
        XCTAssertEqual(after.items.filter { $0.owner != nil }.map(\.service), ["new"])
        XCTAssertEqual(after.items.filter { $0.service != "new" }, before.items)
    }

    /// The independent writer follows version 3 (sections 5.5 and 7.2): writing into the version 2
    /// fixture migrates it (policy open, every old item there and unowned), a new item gets the
    /// owner the file gives it, and an item that exists keeps its owner and access list whatever
    /// the file says; Coffer reads all of it, and the vault verifies clean.
    func testPythonWriterKeepsOwnersAndMigratesVersion2() throws {
        let copy = try VaultFixtureV2Tests.copyFixture(into: folder)
        let mailer: [String: Any] = ["executable": "/usr/bin/mailer", "executableDigest": String(repeating: "ab", count: 32), "executablePinned": true]
        let intruder: [String: Any] = ["executable": "/tmp/intruder"]
        func write(_ items: [[String: Any]]) throws -> Dump {
            let file = folder.file("items.json")
            try JSONSerialization.data(withJSONObject: items).write(to: file)
            return try readWithPython(copy, ["--write", file.path], passphrase: VaultFixtureV2Tests.passphrase)
        }
        let item = { (service: String, owner: [String: Any]) -> [String: Any] in
            ["class": "genericPassword", "service": service, "account": "ada", "secret": "c2VjcmV0", "attributes": [:], "owner": owner,
             "allowed": [["executable": "/usr/bin/git"]]]
        }
        let first = try write([item("new", mailer), item("com.example.mail", intruder).merging(["account": "alice@example.com"]) { $1 }])
        XCTAssertEqual(first.version, 3)
        XCTAssertEqual(first.policy, "open")

        let vault = try Vault.open(at: copy, unlock: .passphrase(VaultFixtureV2Tests.passphrase))
        XCTAssertEqual(try vault.accessPolicy(), .open)
        let git = Program(executable: "/usr/bin/git")
        XCTAssertEqual(try vault.access(for: .genericPassword(service: "new", account: "ada")),
                       ItemAccess(owner: Program(executable: "/usr/bin/mailer", executableDigest: [UInt8](repeating: 0xAB, count: 32), executablePinned: true),
                                  allowed: [git]))
        XCTAssertEqual(try vault.access(for: VaultFixtureV2Tests.mail), .unowned, "an existing item keeps having no owner")
        XCTAssertEqual(try vault.secret(for: VaultFixtureV2Tests.mail), Data("secret".utf8))
        XCTAssertEqual(first.items, try readWithCoffer(vault))
        XCTAssertTrue(try vault.verify().isClean)

        let second = try write([item("new", intruder)])
        XCTAssertEqual(second.items.first { $0.service == "new" }?.owner?.executable, "/usr/bin/mailer")
        XCTAssertEqual(try vault.access(for: .genericPassword(service: "new", account: "ada"))?.owner?.executable, "/usr/bin/mailer")
        XCTAssertTrue(try vault.verify().isClean)
    }
}
