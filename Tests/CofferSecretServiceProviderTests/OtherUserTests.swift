import Coffer
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// Two users on one bus that lets every user connect: the provider serves its own user (root,
/// as the tests run) and refuses the other (uid 65534, through `setpriv`) every call with
/// `AccessDenied` (introspection too), and sends it no signal
/// (docs/secret-service.md, "The security model").
final class OtherUserTests: XCTestCase {
    private typealias Call = SecretServiceCall
    private static let otherUser: uid_t = 65534
    private static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"

    private func requireTwoUsers() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root, to run a client as uid 65534") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw MissingPrerequisite.error("setpriv is not installed (Debian: util-linux)")
        }
    }

    /// The other user's methods, properties and introspection on every kind of object (the
    /// service, the login collection and its alias, an item, a session path, the collections'
    /// parent) all get `AccessDenied`, with no reply values; the owner's same calls work. Before,
    /// the other user searched, opened a session, read the secret, and listed the collections.
    func testAnotherUserIsRefusedEveryCall() throws {
        try requireTwoUsers()
        let fixture = try ProviderFixture(users: PrivateBus.Users(everyone: true))
        let id = ItemID.genericPassword(service: "mail.example", account: "ada")
        try fixture.login.set(Data("the owner's secret".utf8), for: id, options: ItemOptions(label: "Mail"))
        let item = ObjectPaths.item(try fixture.login.rowKey(for: id), in: "login")
        let login = "/org/freedesktop/secrets/collection/login", alias = "/org/freedesktop/secrets/aliases/default"
        let calls: [Call] = [
            Call("open_session", Call.service, Call.serviceInterface, "OpenSession", "sv", ["plain", ["variant": ["s", ""]]]),
            Call("search", Call.service, Call.serviceInterface, "SearchItems", "a{ss}", [["service": "mail.example"]]),
            Call("search_login", login, Call.collectionInterface, "SearchItems", "a{ss}", [[:] as [String: String]]),
            Call("get_secret", item, Call.itemInterface, "GetSecret", "o", ["$session"]),
            Call("get_secrets", Call.service, Call.serviceInterface, "GetSecrets", "aoo", [[item], "$session"]),
            Call("read_alias", Call.service, Call.serviceInterface, "ReadAlias", "s", ["default"]),
            Call("unlock", Call.service, Call.serviceInterface, "Unlock", "ao", [[login]]),
            Call("lock", Call.service, Call.serviceInterface, "Lock", "ao", [[login]]),
            Call("create_collection", Call.service, Call.serviceInterface, "CreateCollection", "a{sv}s", [[:] as [String: Any], ""]),
            Call("delete_item", item, Call.itemInterface, "Delete"),
            Call("close_session", "/org/freedesktop/secrets/session/s1", "org.freedesktop.Secret.Session", "Close"),
            .get("collections", Call.service, Call.serviceInterface, "Collections"),
            .get("items", login, Call.collectionInterface, "Items"),
            .get("alias_label", alias, Call.collectionInterface, "Label"),
            .get("item_label", item, Call.itemInterface, "Label"),
            .get("item_attributes", item, Call.itemInterface, "Attributes"),
            Call("get_all_service", Call.service, Call.properties, "GetAll", "s", [Call.serviceInterface]),
            Call("get_all_login", login, Call.properties, "GetAll", "s", [Call.collectionInterface]),
            Call("get_all_item", item, Call.properties, "GetAll", "s", [Call.itemInterface]),
            Call("set_label", item, Call.properties, "Set", "ssv", [Call.itemInterface, "Label", ["variant": ["s", "taken"]]]),
            Call("introspect_service", Call.service, "org.freedesktop.DBus.Introspectable", "Introspect"),
            Call("introspect_collections", "/org/freedesktop/secrets/collection", "org.freedesktop.DBus.Introspectable", "Introspect"),
            Call("introspect_login", login, "org.freedesktop.DBus.Introspectable", "Introspect"),
        ]
        let other = try fixture.calls(calls, asUser: Self.otherUser)
        for call in calls {
            XCTAssertEqual(other[call.name]?.error, Self.accessDenied, call.name)
            XCTAssertNil(other[call.name]?.reply, call.name)
        }

        // The owner: the same calls work, and nothing the other user tried changed anything.
        let owner = try fixture.calls(calls.filter { !["delete_item", "close_session", "set_label", "lock", "create_collection"].contains($0.name) })
        for (name, answer) in owner { XCTAssertNil(answer.error, name) }
        XCTAssertEqual((owner["get_secret"]?.reply?.first as? [Any])?[2] as? String, "the owner's secret")
        XCTAssertEqual(try fixture.login.item(for: id)?.attributes.label, "Mail")
        XCTAssertTrue((owner["introspect_login"]?.reply?.first as? String)?.contains("<node name=\"\(item.suffix(64))\"/>") == true)
        XCTAssertTrue((owner["introspect_collections"]?.reply?.first as? String)?.contains("<node name=\"login\"/>") == true)
        XCTAssertTrue((owner["introspect_service"]?.reply?.first as? String)?.contains("org.freedesktop.Secret.Service") == true)
    }

    /// Signals go to the owner's connections only: a connection of the other user that listens
    /// to every signal sees none of the Secret Service's while the owner stores an item; the
    /// owner's own listener, which never called the provider, sees `ItemCreated`. Before, every
    /// signal was broadcast, object paths and all.
    func testAnotherUserReceivesNoSignal() throws {
        try requireTwoUsers()
        let fixture = try ProviderFixture(users: PrivateBus.Users(everyone: true))
        let script = try String(contentsOf: ProviderFixture.fixtures.appendingPathComponent("listen.py"), encoding: .utf8)
        let otherListener = try ChildProcess.start(
            "/usr/bin/setpriv", ["--reuid=\(Self.otherUser)", "--regid=\(Self.otherUser)", "--clear-groups", "/usr/bin/python3", "-c", script],
            environment: fixture.environment.merging(["HOME": "/nonexistent"]) { $1 })
        let ownListener = try ChildProcess.start("/usr/bin/python3", ["-c", script], environment: fixture.environment)
        XCTAssertEqual(try otherListener.lines(1, timeout: .seconds(20)), ["listening"])
        XCTAssertEqual(try ownListener.lines(1, timeout: .seconds(20)), ["listening"])

        let stored = try fixture.run("secret-tool", ["store", "--label=Mail", "service", "mail.example", "username", "ada"], stdin: Data("s3cret".utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        let sentinel = try fixture.run("/usr/bin/dbus-send", ["--session", "--type=signal", "/coffer/test", "coffer.test.Sentinel.Done"])
        XCTAssertEqual(sentinel.status, 0, sentinel.stderrText)

        let other = try otherListener.wait(timeout: .seconds(30))
        let own = try ownListener.wait(timeout: .seconds(30))
        XCTAssertEqual(other.stdoutText, "listening\n[]\n", other.stderrText)
        let seen = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(own.stdoutText.split(separator: "\n").last!.utf8)) as? [[String]])
        XCTAssertTrue(seen.contains { $0.first == "ItemCreated" }, "\(seen)")
    }
}
