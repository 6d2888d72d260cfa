import CGio
import CofferBase
import Coffer
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// The provider driven by the clients people use, none written here: secret-tool (libsecret),
/// python-keyring, python-secretstorage, git's libsecret credential helper (built from git's own
/// source) and Debian's docker-credential-secretservice. Each runs on a private bus.
final class RealClientTests: XCTestCase {
    /// `secret-tool` (libsecret, which negotiates the Diffie-Hellman session): store, lookup,
    /// search with `--all`, clear. What it stores under `service`/`username` is the vault's
    /// generic password of that name, the item `coffer get` reads; and the reverse.
    func testSecretTool() throws {
        let fixture = try ProviderFixture()
        let store = try fixture.run("secret-tool", ["store", "--label=Mail", "service", "mail.example", "username", "ada"], stdin: Data("s3cret".utf8))
        XCTAssertEqual(store.status, 0, store.stderrText)
        XCTAssertEqual(try fixture.login.secret(for: .genericPassword(service: "mail.example", account: "ada")), Data("s3cret".utf8))
        XCTAssertEqual(try fixture.login.item(for: .genericPassword(service: "mail.example", account: "ada"))?.attributes.label, "Mail")

        let lookup = try fixture.run("secret-tool", ["lookup", "service", "mail.example", "username", "ada"])
        XCTAssertEqual(lookup.status, 0, lookup.stderrText)
        XCTAssertEqual(lookup.stdoutText, "s3cret")

        try fixture.login.set(Data("from coffer".utf8), for: .genericPassword(service: "cli.example", account: "bob"), options: ItemOptions(label: "CLI"))
        XCTAssertEqual(try fixture.run("secret-tool", ["lookup", "service", "cli.example", "username", "bob"]).stdoutText, "from coffer")

        // secret-tool prints an item's attributes on stderr, the rest on stdout.
        let search = try fixture.run("secret-tool", ["search", "--all", "username", "ada"])
        XCTAssertEqual(search.status, 0, search.stderrText)
        XCTAssertTrue(search.stdoutText.contains("label = Mail\n"), search.stdoutText)
        XCTAssertTrue(search.stdoutText.contains("secret = s3cret\n"), search.stdoutText)
        XCTAssertTrue(search.stderrText.contains("attribute.service = mail.example\n"), search.stderrText)
        let rowKey = try fixture.login.rowKey(for: .genericPassword(service: "mail.example", account: "ada"))
        XCTAssertTrue(search.stdoutText.hasPrefix("[/\(Hex.encode(rowKey))]\n"), "secret-tool names the item by the last part of its path")

        let clear = try fixture.run("secret-tool", ["clear", "service", "mail.example", "username", "ada"])
        XCTAssertEqual(clear.status, 0, clear.stderrText)
        XCTAssertNil(try fixture.login.secret(for: .genericPassword(service: "mail.example", account: "ada")))
        XCTAssertNotEqual(try fixture.run("secret-tool", ["lookup", "service", "mail.example", "username", "ada"]).status, 0)
    }

    /// python-keyring's SecretService backend (through secretstorage): set, get, delete.
    func testPythonKeyring() throws {
        let fixture = try ProviderFixture()
        let script = """
            import sys
            from keyring.backends.SecretService import Keyring
            k = Keyring()
            k.set_password("svc.example", "ada", "pässword")
            print(k.get_password("svc.example", "ada"))
            k.set_password("svc.example", "ada", "second")
            print(k.get_password("svc.example", "ada"))
            k.delete_password("svc.example", "ada")
            print(k.get_password("svc.example", "ada"))
            """
        let output = try fixture.python(["-c", script])
        XCTAssertEqual(output.status, 0, output.stderrText)
        XCTAssertEqual(output.stdoutText, "pässword\nsecond\nNone\n")
        // Between set and delete the item was the vault's: python-keyring's own attributes stay custom ones.
        let script2 = "from keyring.backends.SecretService import Keyring; Keyring().set_password('svc.example', 'ada', 'kept')"
        XCTAssertEqual(try fixture.python(["-c", script2]).status, 0)
        let item = try XCTUnwrap(try fixture.login.item(for: .genericPassword(service: "svc.example", account: "ada")))
        XCTAssertEqual(item.secret, Data("kept".utf8))
        XCTAssertEqual(item.attributes.custom["application"], "Python keyring library")
        XCTAssertEqual(item.attributes.label, "Password for 'ada' on 'svc.example'")
    }

    /// python-secretstorage, with each session algorithm: the collections, creating and deleting
    /// one, locking and unlocking (the login collection through the prompter, a created one with
    /// no prompt), attributes, labels, content types, and the item signals another connection sees.
    func testSecretstorage() throws {
        // Another library of the process (libsecret, once the vault's Secret Service slot uses
        // it in the agent) may have mapped the Secret Service's error names to a GError domain
        // of its own first: the provider's errors must keep their names then too.
        _ = g_dbus_error_register_error(g_quark_from_static_string("coffer-test-other-library"), 0, "org.freedesktop.Secret.Error.IsLocked")
        for algorithm in ["dh", "plain"] {
            let fixture = try ProviderFixture(prompter: "printf '%s\\n' '\(ProviderFixture.loginPassphrase)'")
            let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("secretstorage_client.py").path, algorithm])
            XCTAssertEqual(output.status, 0, output.stderrText)
            let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
            XCTAssertEqual(report["algorithm"] as? String, algorithm)
            let login = try XCTUnwrap(report["default"] as? [String: Any])
            XCTAssertEqual(login["path"] as? String, "/org/freedesktop/secrets/aliases/default", "secretstorage uses the alias path as is")
            XCTAssertEqual(login["label"] as? String, "Login")
            XCTAssertEqual(login["locked"] as? Bool, false)
            XCTAssertEqual(report["created"] as? [String: String], ["path": "/org/freedesktop/secrets/collection/work_keys", "label": "Work Keys"])
            XCTAssertEqual(report["collections"] as? [String], ["/org/freedesktop/secrets/collection/login", "/org/freedesktop/secrets/collection/work_keys"])

            let item = try XCTUnwrap(report["item"] as? [String: Any])
            let path = try XCTUnwrap(item["path"] as? String), copy = try XCTUnwrap(item["copy"] as? String)
            XCTAssertEqual(item["label"] as? String, "Renamed token")
            XCTAssertEqual(item["attributes"] as? [String: String], ["app": "coffer-test", "kind": "refresh"])
            XCTAssertEqual(item["secret"] as? [Int], [0, 1] + Array("binary".utf8).map(Int.init) + [255])
            XCTAssertEqual(item["content_type"] as? String, "application/octet-stream")
            XCTAssertEqual(report["item_after_set_secret"] as? [String: String], ["secret": "new text", "content_type": "text/plain", "label": "Renamed token"])
            XCTAssertEqual(report["search"] as? [String], [path])
            XCTAssertEqual(report["signals"] as? [[String]], [
                ["ItemCreated", path], ["ItemChanged", path], ["ItemChanged", path], ["ItemCreated", copy], ["ItemDeleted", copy],
            ])

            XCTAssertEqual(report["collection_signal"] as? [String], ["CollectionCreated", "/org/freedesktop/secrets/collection/work_keys"])
            let properties = try XCTUnwrap(report["properties"] as? [String: Any])
            for object in ["item", "collection"] {
                let times = try XCTUnwrap(properties[object] as? [String: Int], object)
                XCTAssertGreaterThan(times["Created"] ?? 0, 1_700_000_000, "\(object): Created is a Unix time")
                XCTAssertGreaterThanOrEqual(times["Modified"] ?? 0, times["Created"] ?? .max, "\(object): Modified is not before Created")
            }
            XCTAssertEqual(properties["type"] as? String, "org.example.Password", "Type is the item's xdg:schema")
            XCTAssertTrue((properties["items"] as? [String] ?? []).contains(path), "Items lists the collection's items")
            XCTAssertEqual(report["aliases"] as? [String: String], [
                "default": "/org/freedesktop/secrets/collection/login", "unknown": "/",
                "work": "/org/freedesktop/secrets/collection/work_keys", "work_label": "Work Keys", "work_removed": "/",
            ])
            XCTAssertEqual(report["locked_items"] as? [String], [], "a locked collection lists no items")
            XCTAssertEqual(report["locked_errors"] as? [String: String], [
                "create_item": "org.freedesktop.Secret.Error.IsLocked", "get_secret": "org.freedesktop.Secret.Error.IsLocked",
                "item_label": "org.freedesktop.Secret.Error.IsLocked",
            ], "a locked collection refuses with IsLocked, from a method and from a property")
            XCTAssertEqual(report["created_locked"] as? Bool, true)
            XCTAssertEqual(report["created_unlock_dismissed"] as? Bool, false, "a created collection unlocks with the login one")
            XCTAssertEqual(report["created_relocked"] as? Bool, false)
            XCTAssertEqual(report["default_locked"] as? Bool, true)
            XCTAssertEqual(report["default_unlock_dismissed"] as? Bool, false, "the prompter gave the passphrase")
            XCTAssertEqual(report["default_unlocked"] as? Bool, true)
            XCTAssertEqual(report["created_label"] as? String, "Renamed keys")
            XCTAssertEqual(report["collections_after_delete"] as? [String], ["/org/freedesktop/secrets/collection/login"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.folder.file("data/coffer/secret-service/work_keys.vault").path))
        }
    }

    /// git's own libsecret credential helper (contrib/credential/libsecret, built from the
    /// source Debian's git package ships): `git credential approve`, `fill`, `reject`.
    func testGitCredentialHelper() throws {
        let helper = try GitCredentialHelper.build()
        let fixture = try ProviderFixture()
        func git(_ action: String, _ input: String) throws -> ChildProcess.Output {
            try fixture.run("git", ["-c", "credential.helper=", "-c", "credential.helper=\(helper.path)", "credential", action],
                            stdin: Data(input.utf8), extraEnvironment: ["GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": nil, "SSH_ASKPASS": nil])
        }
        let approve = try git("approve", "protocol=https\nhost=git.example.com\nusername=ada\npassword=ghp_token\n\n")
        XCTAssertEqual(approve.status, 0, approve.stderrText)
        let fill = try git("fill", "protocol=https\nhost=git.example.com\n\n")
        XCTAssertEqual(fill.status, 0, fill.stderrText)
        XCTAssertTrue(fill.stdoutText.contains("username=ada\n"), fill.stdoutText)
        XCTAssertTrue(fill.stdoutText.contains("password=ghp_token\n"), fill.stdoutText)
        XCTAssertEqual(try fixture.login.storedItems(withAttributes: ["server": "git.example.com", "protocol": "https"]).count, 1)

        let reject = try git("reject", "protocol=https\nhost=git.example.com\nusername=ada\npassword=ghp_token\n\n")
        XCTAssertEqual(reject.status, 0, reject.stderrText)
        XCTAssertNotEqual(try git("fill", "protocol=https\nhost=git.example.com\n\n").status, 0, "nothing left to fill from, and no terminal")
        XCTAssertEqual(try fixture.login.storedItems(withAttributes: ["server": "git.example.com"]).count, 0)
    }

    /// Debian's docker-credential-secretservice (golang-docker-credential-helpers): store, get,
    /// list, erase, and its exact "not found" message.
    func testDockerCredentialHelper() throws {
        let fixture = try ProviderFixture()
        let helper = "docker-credential-secretservice"
        let server = "https://registry.example.com"
        let store = try fixture.run(helper, ["store"], stdin: Data(#"{"ServerURL":"\#(server)","Username":"ada","Secret":"dckr_pat"}"#.utf8))
        XCTAssertEqual(store.status, 0, store.stdoutText + store.stderrText)
        let get = try fixture.run(helper, ["get"], stdin: Data(server.utf8))
        XCTAssertEqual(get.status, 0, get.stdoutText + get.stderrText)
        let credentials = try XCTUnwrap(try JSONSerialization.jsonObject(with: get.stdout) as? [String: String])
        XCTAssertEqual(credentials["Username"], "ada")
        XCTAssertEqual(credentials["Secret"], "dckr_pat")
        let list = try fixture.run(helper, ["list"])
        XCTAssertEqual(list.status, 0, list.stdoutText + list.stderrText)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: list.stdout) as? [String: String], [server: "ada"])
        let erase = try fixture.run(helper, ["erase"], stdin: Data(server.utf8))
        XCTAssertEqual(erase.status, 0, erase.stdoutText + erase.stderrText)
        let missing = try fixture.run(helper, ["get"], stdin: Data(server.utf8))
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stdoutText.contains("credentials not found in native keychain"), missing.stdoutText)
    }

    /// The `plain` algorithm, which libsecret never picks by itself, from jeepney: OpenSession,
    /// CreateItem on the `default` alias path, GetSecret on the path it returned, SearchItems
    /// listing that same path. And GLib's own `gdbus` tool, whose every call is a connection of
    /// its own, cannot use the session another of its calls opened: `NoSession`.
    func testPlainSessionAndItsOwner() throws {
        let fixture = try ProviderFixture()
        let script = """
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection
            ss = "org.freedesktop.secrets"
            service = DBusAddress("/org/freedesktop/secrets", bus_name=ss, interface="org.freedesktop.Secret.Service")
            default = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name=ss, interface="org.freedesktop.Secret.Collection")
            c = open_dbus_connection(bus="SESSION")
            call = lambda address, method, signature=None, body=(): c.send_and_get_reply(new_method_call(address, method, signature, body)).body
            output, session = call(service, "OpenSession", "sv", ("plain", ("s", "")))
            properties = {"org.freedesktop.Secret.Item.Label": ("s", "Token"),
                          "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"service": "api.example", "username": "ada"})}
            item, prompt = call(default, "CreateItem", "a{sv}(oayays)b", (properties, (session, b"", b"tok", "text/plain"), True))
            secret = call(DBusAddress(item, bus_name=ss, interface="org.freedesktop.Secret.Item"), "GetSecret", "o", (session,))[0]
            found = call(service, "SearchItems", "a{ss}", ({"service": "api.example"},))[0]
            print(output, prompt, secret[1], secret[2].decode(), secret[3], found == [item], item)
            """
        let output = try fixture.python(["-c", script])
        XCTAssertEqual(output.status, 0, output.stderrText)
        let fields = output.stdoutText.split(separator: " ").map(String.init)
        XCTAssertEqual(Array(fields.prefix(6)), ["('s',", "'')", "/", "b''", "tok", "text/plain"], output.stdoutText)
        XCTAssertEqual(fields[6], "True", "SearchItems lists the path CreateItem returned")
        let item = fields[7].trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(item, ObjectPaths.item(try fixture.login.rowKey(for: .genericPassword(service: "api.example", account: "ada")), in: "login"))

        let opened = try fixture.run("gdbus", ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
                                               "--method", "org.freedesktop.Secret.Service.OpenSession", "plain", "<''>"])
        XCTAssertEqual(opened.status, 0, opened.stderrText)
        let session = try XCTUnwrap(opened.stdoutText.split(separator: "'").map(String.init).first { $0.hasPrefix("/org/freedesktop/secrets/session/") })
        let stolen = try fixture.run("gdbus", ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", item,
                                               "--method", "org.freedesktop.Secret.Item.GetSecret", session])
        XCTAssertNotEqual(stolen.status, 0)
        XCTAssertTrue(stolen.stderrText.contains("org.freedesktop.Secret.Error.NoSession"), stolen.stderrText)
    }
}

/// git's libsecret credential helper, built once from the source Debian's git package ships
/// (`/usr/share/doc/git/contrib/credential/libsecret`) into `.build-git-credential-libsecret`
/// at the package root (never committed).
enum GitCredentialHelper {
    static let source = URL(fileURLWithPath: "/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c")

    static func build() throws -> URL {
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw MissingPrerequisite.error("git's libsecret helper source is missing (Debian's git package ships it)")
        }
        return try CProgram.build(source, named: "git-credential-libsecret", packages: ["libsecret-1", "glib-2.0"])
    }
}
