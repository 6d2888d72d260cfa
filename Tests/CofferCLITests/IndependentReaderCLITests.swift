import CofferTestSupport
import Foundation
import XCTest

/// docs/vault-format.md is enough to write a vault as well as read one: the independent Python
/// reader and writer (Tests/CofferTests/Fixtures/read_vault.py, written from the document
/// alone) and the `coffer` CLI agree on 24 items both ways, names in NFD, binary secrets,
/// custom attributes, expiry and internet fields included.
final class IndependentReaderCLITests: CLITestCase {
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CofferTests/Fixtures/read_vault.py")

    /// One item as the Python side prints and writes it (its JSON shape).
    struct Entry: Codable, Equatable {
        var `class`: String
        var service: String
        var account: String
        var secret: String
        var label: String?
        var comment: String?
        var attributes: [String: String]
        var expires: Int64?
        var `protocol`: String?
        var port: Int?
        var path: String?
        var authenticationType: String?
    }

    struct Dump: Decodable {
        let items: [Entry]
        let unreadable: Int
        let version: Int
    }

    /// `coffer list --json`'s fields that both sides hold.
    struct CLIItem: Decodable {
        struct Internet: Decodable {
            let `protocol`: String?, port: Int?, path: String?, authenticationType: String?
        }
        let `class`: String, service: String, account: String
        let label: String?, comment: String?, attributes: [String: String]
        let expiresAt: String?, internet: Internet?
    }

    /// The key file the test vault opens with: no Argon2id run in the many commands here.
    var key: URL { folder.file("vault.key") }
    var keyed: [String: String?] { ["COFFER_KEYFILE": key.path, "COFFER_PASSPHRASE": nil] }

    /// A key-file vault, its key file made by `coffer init`.
    private func initKeyedVault() throws {
        let outcome = try coffer(["init"], environment: keyed)
        XCTAssertEqual(outcome.status, 0, outcome.stderrText)
    }

    private func python(_ arguments: [String]) throws -> Dump {
        let outcome = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, vault.path, "--keyfile", key.path] + arguments)
        XCTAssertEqual(outcome.status, 0, outcome.stderrText)
        return try JSONDecoder().decode(Dump.self, from: outcome.stdout)
    }

    /// Every item as `coffer list --json` shows it, by service and account.
    private func cliItems() throws -> [String: CLIItem] {
        let outcome = try coffer(["list", "--json"], environment: keyed)
        XCTAssertEqual(outcome.status, 0, outcome.stderrText)
        let items = try JSONDecoder().decode([CLIItem].self, from: outcome.stdout)
        return Dictionary(items.map { ($0.service + "|" + $0.account, $0) }) { first, _ in first }
    }

    /// Asserts that what the CLI reads for `entry` is `entry`: every attribute, as `list --json`
    /// shows it (`items`), and the secret byte for byte through `coffer get` by the entry's own
    /// names (in NFD where it has them).
    private func assertCLIReads(_ entry: Entry, in items: [String: CLIItem], file: StaticString = #filePath, line: UInt = #line) throws {
        let name = "\(entry.service)/\(entry.account)"
        let item = try XCTUnwrap(items[precomposed(entry.service) + "|" + precomposed(entry.account)], name, file: file, line: line)
        XCTAssertEqual(item.class, entry.class, name, file: file, line: line)
        XCTAssertEqual(item.label, entry.label.map(precomposed), name, file: file, line: line)
        XCTAssertEqual(item.comment, entry.comment, name, file: file, line: line)
        XCTAssertEqual(item.attributes, entry.attributes, name, file: file, line: line)
        XCTAssertEqual(item.expiresAt != nil, entry.expires != nil, name, file: file, line: line)
        XCTAssertEqual(item.internet?.protocol, entry.protocol, name, file: file, line: line)
        XCTAssertEqual(item.internet?.port, entry.port, name, file: file, line: line)
        XCTAssertEqual(item.internet?.path, entry.path, name, file: file, line: line)
        XCTAssertEqual(item.internet?.authenticationType, entry.authenticationType, name, file: file, line: line)
        let internet = entry.class == "internetPassword" ? ["--internet"] : []
        let raw = try coffer(["get"] + internet + [entry.service, entry.account], environment: keyed)
        XCTAssertEqual(raw.status, 0, "\(name): \(raw.stderrText)", file: file, line: line)
        XCTAssertEqual(raw.stdout.base64EncodedString(), entry.secret, name, file: file, line: line)
    }

    private func precomposed(_ text: String) -> String { text.precomposedStringWithCanonicalMapping }

    /// A secret of `count` bytes, binary unless `count` is odd.
    private func secret(_ index: Int, count: Int) -> Data {
        count % 2 == 1 ? Data("secret \(index) ü€".utf8) : Data((0..<count).map { UInt8(($0 * 37 + index) & 0xFF) })
    }

    /// What the CLI writes, the Python reader reads: 24 items set through `coffer set`, generic
    /// and internet passwords, names in NFD (stored in NFC), binary and UTF-8 secrets, labels,
    /// comments, custom attributes and expiry; a search through the attribute index finds each
    /// custom attribute's item.
    func testTheIndependentReaderReadsWhatTheCLIWrites() throws {
        try initKeyedVault()
        var written: [String: (secret: Data, label: String?, comment: String?, attributes: [String: String], expires: Bool)] = [:]
        for index in 0..<24 {
            let internet = index % 3 == 0
            let service = internet ? "https://host\(index).example" : (index % 4 == 1 ? "cafe\u{301}-\(index)" : "service-\(index)")
            let account = index % 5 == 2 ? "Zoe\u{308}-\(index)" : "user-\(index)"
            let secret = secret(index, count: 1 + index * 11)
            let label = index % 2 == 0 ? "Label \(index)" : nil
            let comment = index % 5 == 0 ? "comment \(index)" : nil
            let attributes = index % 2 == 1 ? ["env": "prod\(index % 3)", "k": "v\(index)"] : [:]
            var arguments = ["set"] + (internet ? ["--internet"] : []) + [service, account]
            if let label { arguments += ["--label", label] }
            if let comment { arguments += ["--comment", comment] }
            for (name, value) in attributes.sorted(by: { $0.key < $1.key }) { arguments += ["--attribute", "\(name)=\(value)"] }
            if index % 7 == 0 { arguments += ["--expires-in", "3600"] }
            let outcome = try coffer(arguments, stdin: secret, environment: keyed)
            XCTAssertEqual(outcome.status, 0, outcome.stderrText)
            written[precomposed(service) + "|" + precomposed(account)] = (secret, label, comment, attributes, index % 7 == 0)
        }

        let dump = try python([])
        XCTAssertEqual(dump.version, 3)
        XCTAssertEqual(dump.unreadable, 0)
        XCTAssertEqual(dump.items.count, 24)
        let items = try cliItems()
        for entry in dump.items {
            let expected = try XCTUnwrap(written[entry.service + "|" + entry.account], "\(entry.service)/\(entry.account)")
            XCTAssertEqual(entry.secret, expected.secret.base64EncodedString(), entry.service)
            XCTAssertEqual(entry.label, expected.label, entry.service)
            XCTAssertEqual(entry.comment, expected.comment, entry.service)
            XCTAssertEqual(entry.attributes, expected.attributes, entry.service)
            XCTAssertEqual(entry.expires != nil, expected.expires, entry.service)
            try assertCLIReads(entry, in: items)
        }
        for index in stride(from: 1, to: 24, by: 6) {
            let found = try python(["--search", "k=v\(index)"])
            XCTAssertEqual(found.items.count, 1, "k=v\(index)")
            XCTAssertEqual(found.items.first?.attributes["k"], "v\(index)")
        }
    }

    /// What the Python writer writes (section 6: records, row keys and index rows of its own),
    /// the CLI reads: 24 items, every field, a lookup by an NFD name, and `coffer check` finds
    /// the file sound, the attribute index included.
    func testTheCLIReadsWhatTheIndependentWriterWrites() throws {
        try initKeyedVault()
        let inOneHour = Int64(Date().addingTimeInterval(3600).timeIntervalSince1970 * 1000)
        let entries = (0..<24).map { index -> Entry in
            let internet = index % 3 == 0
            return Entry(
                class: internet ? "internetPassword" : "genericPassword",
                service: internet ? "host\(index).example" : (index % 4 == 1 ? "cafe\u{301}-\(index)" : "service-\(index)"),
                account: "user-\(index)", secret: secret(index, count: 2 + index * 13).base64EncodedString(),
                label: index % 2 == 0 ? "Label e\u{301} \(index)" : nil, comment: index % 5 == 0 ? "comment \(index)" : nil,
                attributes: index % 2 == 1 ? ["env": "prod\(index % 3)", "k": "v\(index)"] : [:],
                expires: index % 7 == 0 ? inOneHour : nil,
                protocol: internet ? (index == 3 ? "" : "https") : nil, port: internet && index % 2 == 0 ? 8443 : nil,
                path: internet ? "/repo\(index).git" : nil, authenticationType: internet && index == 6 ? "basic" : nil)
        }
        let file = folder.file("items.json")
        try JSONEncoder().encode(entries).write(to: file)

        let dump = try python(["--write", file.path])
        XCTAssertEqual(dump.items.count, 24)
        XCTAssertEqual(dump.unreadable, 0)

        let items = try cliItems()
        XCTAssertEqual(items.count, 24)
        for entry in entries { try assertCLIReads(entry, in: items) }
        let check = try coffer(["check"], environment: keyed)
        XCTAssertEqual(check.status, 0, check.stdoutText + check.stderrText)
    }
}
