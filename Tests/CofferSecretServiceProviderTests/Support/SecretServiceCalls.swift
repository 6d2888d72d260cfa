import CofferTestSupport
import Foundation
import XCTest

/// One Secret Service call that Fixtures/ss_calls.py makes (with jeepney), named for its answer.
struct SecretServiceCall {
    static let service = "/org/freedesktop/secrets"
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"
    static let properties = "org.freedesktop.DBus.Properties"

    let name: String
    let path: String
    let interface: String
    let method: String
    let signature: String
    /// JSON values; `["bytes": "text"]` is sent as bytes, `["variant": [signature, value]]` as a
    /// variant, `["struct": [values]]` as a struct, `"$session"` as the last session opened.
    let arguments: [Any]

    init(_ name: String, _ path: String, _ interface: String, _ method: String, _ signature: String = "", _ arguments: [Any] = []) {
        self.name = name
        self.path = path
        self.interface = interface
        self.method = method
        self.signature = signature
        self.arguments = arguments
    }

    /// `Get` of a property.
    static func get(_ name: String, _ path: String, _ interface: String, _ property: String) -> SecretServiceCall {
        SecretServiceCall(name, path, properties, "Get", "ss", [interface, property])
    }

    /// `CreateItem` in the collection at `path`.
    static func createItem(_ name: String, in path: String, attributes: [String: String], secret: String, session: String) -> SecretServiceCall {
        SecretServiceCall(name, path, collectionInterface, "CreateItem", "a{sv}(oayays)b", [
            ["org.freedesktop.Secret.Item.Attributes": ["variant": ["a{ss}", attributes]], "org.freedesktop.Secret.Item.Label": ["variant": ["s", name]]],
            ["struct": [session, ["bytes": ""], ["bytes": secret], "text/plain"]], true,
        ])
    }
}

/// What one call answered: a D-Bus error's name, or the reply's values.
struct SecretServiceAnswer {
    let error: String?
    let reply: [Any]?
}

extension ProviderFixture {
    /// Makes `calls` in order on one new connection, as the user `uid` when given (through
    /// `setpriv`; the tests run as root), and returns each answer by name.
    func calls(_ calls: [SecretServiceCall], asUser uid: uid_t? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> [String: SecretServiceAnswer] {
        let encoded = try JSONSerialization.data(withJSONObject: calls.map { [$0.name, $0.path, $0.interface, $0.method, $0.signature, $0.arguments] })
        // Given as text, so that another user need not reach the file.
        let script = try String(contentsOf: Self.fixtures.appendingPathComponent("ss_calls.py"), encoding: .utf8)
        let python = ["/usr/bin/python3", "-c", script, String(decoding: encoded, as: UTF8.self)]
        let output = try uid.map { uid in
            try run("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"] + python, extraEnvironment: ["HOME": "/nonexistent"])
        } ?? run(python[0], Array(python.dropFirst()))
        XCTAssertEqual(output.status, 0, output.stderrText, file: file, line: line)
        let results = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: [String: Any]], output.stdoutText)
        return results.mapValues { SecretServiceAnswer(error: $0["error"] as? String, reply: $0["reply"] as? [Any]) }
    }
}
