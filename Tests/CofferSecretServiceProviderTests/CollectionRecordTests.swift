import Coffer
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// Created collections' keys, labels and aliases are the provider's records, out of every
/// client's reach (docs/secret-service.md, "Collections are vaults"): a client cannot forge a
/// collection, replace its key or delete a file through one, and the records of earlier versions,
/// which clients could write, are taken over once without trusting their paths.
final class CollectionRecordTests: XCTestCase {
    private typealias Call = SecretServiceCall
    private static let login = "/org/freedesktop/secrets/collection/login"
    private static var openSession: Call { Call("session", Call.service, Call.serviceInterface, "OpenSession", "sv", ["plain", ["variant": ["s", ""]]]) }

    /// The collection paths the provider lists.
    private func collections(_ fixture: ProviderFixture) throws -> [String] {
        let answer = try fixture.calls([.get("collections", Call.service, Call.serviceInterface, "Collections")])["collections"]
        // A variant comes as its signature and value.
        return try XCTUnwrap((answer?.reply?.first as? [Any])?.last as? [String], "\(String(describing: answer))")
    }

    /// Creates the collection "Work" with python-secretstorage, holding one item with `secret`
    /// and the attribute `app`.
    private func createWork(_ fixture: ProviderFixture, app: String, secret: String) throws {
        let script = """
            import secretstorage
            connection = secretstorage.dbus_init()
            work = secretstorage.create_collection(connection, "Work")
            work.create_item("Token", {"app": "\(app)"}, b"\(secret)")
            print(work.collection_path)
            """
        let created = try fixture.python(["-c", script])
        XCTAssertEqual(created.stdoutText, "/org/freedesktop/secrets/collection/work\n", created.stderrText)
    }

    /// What python-secretstorage finds in the collection "Work" by `app`: whether it is locked,
    /// and the secrets.
    private func readWork(_ fixture: ProviderFixture, app: String) throws -> String {
        let script = """
            import secretstorage
            connection = secretstorage.dbus_init()
            work = secretstorage.Collection(connection, "/org/freedesktop/secrets/collection/work")
            print(work.is_locked(), [item.get_secret() for item in work.search_items({"app": "\(app)"})])
            """
        let output = try fixture.python(["-c", script])
        XCTAssertEqual(output.status, 0, output.stderrText)
        return output.stdoutText
    }

    /// A file of someone else's that a forged record names: it must survive.
    private func victim(_ fixture: ProviderFixture) throws -> URL {
        let victim = fixture.folder.file("victim.txt")
        try Data("precious".utf8).write(to: victim)
        return victim
    }

    /// A client writes what earlier versions took for a created collection (service
    /// `coffer:collection`, a `coffer:vault` path: another file, and the login vault itself),
    /// and deletes the collections it names: nothing is deleted, no such collection exists, and
    /// the provider's own records cannot be written at all. Before, `Delete` removed the file
    /// the item named, with its -wal and -shm.
    func testAForgedRecordDeletesNothing() throws {
        let fixture = try ProviderFixture()
        let victim = try victim(fixture)
        let loginPath = CollectionRegistry.realPath(fixture.loginURL.path)
        let forged = try fixture.calls([
            Self.openSession,
            .createItem("other_file", in: Self.login, attributes: [
                "service": "coffer:collection", "username": "other_file", "coffer:vault": victim.path, "xdg:schema": "coffer.CollectionKey",
            ], secret: String(repeating: "k", count: 32), session: "$session"),
            .createItem("login_vault", in: Self.login, attributes: [
                "service": "coffer:collection", "username": "login_vault", "coffer:vault": loginPath, "xdg:schema": "coffer.CollectionKey",
            ], secret: String(repeating: "k", count: 32), session: "$session"),
            .createItem("provider_record", in: Self.login, attributes: ["service": "coffer:secret-service", "username": "collection:mine"],
                        secret: String(repeating: "k", count: 32), session: "$session"),
        ])
        XCTAssertNil(forged["other_file"]?.error, "an ordinary item, as far as the client knows")
        XCTAssertEqual(forged["provider_record"]?.error, "org.freedesktop.DBus.Error.InvalidArgs", "the provider's own service is reserved")
        try fixture.restart()

        XCTAssertEqual(try collections(fixture), [Self.login])
        let deleted = try fixture.calls([
            Call("other_file", "/org/freedesktop/secrets/collection/other_file", Call.collectionInterface, "Delete"),
            Call("login_vault", "/org/freedesktop/secrets/collection/login_vault", Call.collectionInterface, "Delete"),
        ])
        XCTAssertEqual(deleted["other_file"]?.error, "org.freedesktop.Secret.Error.NoSuchObject")
        XCTAssertEqual(deleted["login_vault"]?.error, "org.freedesktop.Secret.Error.NoSuchObject")
        XCTAssertEqual(try Data(contentsOf: victim), Data("precious".utf8))
        XCTAssertTrue(FileManager.default.fileExists(atPath: loginPath))
        XCTAssertTrue(FileManager.default.fileExists(atPath: loginPath + "-wal"))
        XCTAssertNotNil(try Vault.open(at: fixture.loginURL, unlock: .passphrase(ProviderFixture.loginPassphrase)).item(
            for: .genericPassword(service: "coffer:collection", account: "other_file")), "the login vault is whole")
    }

    /// python-keyring through the real provider stores under `service=coffer:collection
    /// username=NAME`, which earlier versions took for the key of the collection NAME: the
    /// collection keeps its key and its items (after a restart too). Storing under the
    /// provider's own service is refused. Before, the collection's key was replaced, and its
    /// items lost.
    func testKeyringCannotReplaceACollectionsKey() throws {
        let fixture = try ProviderFixture()
        try createWork(fixture, app: "records-test", secret: "work secret")

        let keyring = """
            import keyring
            from keyring.backends.SecretService import Keyring
            backend = Keyring()
            backend.set_password("coffer:collection", "work", "not the key")
            try:
                backend.set_password("coffer:secret-service", "collection:work", "not the key")
                print("stored")
            except Exception as error:
                print("refused")
            """
        let stored = try fixture.python(["-c", keyring])
        XCTAssertEqual(stored.stdoutText, "refused\n", stored.stderrText)
        try fixture.restart()
        XCTAssertEqual(try readWork(fixture, app: "records-test"), "False [b'work secret']\n")
    }

    /// The agent's brokered logins (service `coffer.openid`, docs/agent.md, "The token broker")
    /// are in the login vault, but no Secret Service client's: python-keyring finds neither the
    /// profile's settings nor its session (whose refresh token never leaves the agent), a
    /// search by every attribute finds nothing, and storing under the service is refused. The
    /// items are untouched. Before, any client of the bus could read the refresh token.
    func testABrokeredLoginIsNoClientsItem() throws {
        let session = ItemID.genericPassword(service: BrokeredSessions.service, account: "default coffer-native https://id.example")
        let fixture = try ProviderFixture(beforeStart: { layout in
            try layout.login.set(Data(#"{"refreshToken":"rt-secret"}"#.utf8), for: session, options: ItemOptions(custom: ["coffer.openid.profile": "default"]))
            try layout.login.set(Data(#"{"clientID":"coffer-native"}"#.utf8), for: BrokeredSessions.settingsID(profile: "default"))
        })
        let script = """
            import keyring, secretstorage
            from keyring.backends.SecretService import Keyring
            backend = Keyring()
            print(backend.get_password("coffer.openid", "default"))
            print(backend.get_password("coffer.openid", "\(session.account)"))
            connection = secretstorage.dbus_init()
            print(len(list(secretstorage.search_items(connection, {"coffer.openid.profile": "default"}))))
            print(sum(1 for item in secretstorage.get_default_collection(connection).get_all_items() if b"rt-secret" in item.get_secret()))
            try:
                backend.set_password("coffer.openid", "default", "forged")
                print("stored")
            except Exception as error:
                print("refused")
            """
        let output = try fixture.python(["-c", script])
        XCTAssertEqual(output.stdoutText, "None\nNone\n0\n0\nrefused\n", output.stderrText)
        XCTAssertEqual(try fixture.login.secret(for: session), Data(#"{"refreshToken":"rt-secret"}"#.utf8))
        XCTAssertEqual(try fixture.login.secret(for: BrokeredSessions.settingsID(profile: "default")), Data(#"{"clientID":"coffer-native"}"#.utf8))
    }

    /// The login collection, by its path or its alias, is the user's vault: `Delete` is refused
    /// with `NotSupported`, and the vault stays.
    func testTheLoginCollectionCannotBeDeleted() throws {
        let fixture = try ProviderFixture()
        let answers = try fixture.calls([
            Call("login", Self.login, Call.collectionInterface, "Delete"),
            Call("alias", "/org/freedesktop/secrets/aliases/default", Call.collectionInterface, "Delete"),
        ])
        XCTAssertEqual(answers["login"]?.error, "org.freedesktop.DBus.Error.NotSupported")
        XCTAssertEqual(answers["alias"]?.error, "org.freedesktop.DBus.Error.NotSupported")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fixture.loginURL.path))
        XCTAssertEqual(try collections(fixture), [Self.login])
    }

    /// `Delete` of a created collection removes its own vault (with its -wal and -shm) in the
    /// provider's folder, and nothing else: when a symbolic link or another file stands where
    /// its vault was, the delete is refused and that file stays.
    func testDeleteRemovesOnlyTheCollectionsOwnVault() throws {
        let fixture = try ProviderFixture()
        let victim = try victim(fixture)
        let create = Call("create", Call.service, Call.serviceInterface, "CreateCollection", "a{sv}s",
                          [["org.freedesktop.Secret.Collection.Label": ["variant": ["s", "Work"]]], ""])
        XCTAssertEqual(try fixture.calls([create])["create"]?.reply?.first as? String, "/org/freedesktop/secrets/collection/work")
        let vaultPath = ProviderFolder(loginVaultPath: CollectionRegistry.realPath(fixture.loginURL.path)).vaultPath(of: "work")
        XCTAssertTrue(FileManager.default.fileExists(atPath: vaultPath))

        let kept = vaultPath + ".kept"
        try FileManager.default.moveItem(atPath: vaultPath, toPath: kept)
        try FileManager.default.createSymbolicLink(atPath: vaultPath, withDestinationPath: victim.path)
        let delete = Call("delete", "/org/freedesktop/secrets/collection/work", Call.collectionInterface, "Delete")
        XCTAssertEqual(try fixture.calls([delete])["delete"]?.error, "org.freedesktop.DBus.Error.Failed")
        XCTAssertEqual(try Data(contentsOf: victim), Data("precious".utf8))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: vaultPath), victim.path)

        try FileManager.default.removeItem(atPath: vaultPath)
        try FileManager.default.moveItem(atPath: kept, toPath: vaultPath)
        XCTAssertNil(try fixture.calls([delete])["delete"]?.error)
        for suffix in ["", "-wal", "-shm"] { XCTAssertFalse(FileManager.default.fileExists(atPath: vaultPath + suffix), suffix) }
        XCTAssertEqual(try collections(fixture), [Self.login])
        XCTAssertEqual(try Data(contentsOf: victim), Data("precious".utf8))
    }

    /// The records are items of the login vault: rotating its key keeps them, and the created
    /// collection still opens with its key (a record sealed by a key derived from the login
    /// vault's would not).
    func testCreatedCollectionsSurviveARotationOfTheLoginKey() throws {
        let fixture = try ProviderFixture()
        try createWork(fixture, app: "rotation-test", secret: "still here")
        try fixture.login.rotateVaultKey(credentials: [.passphrase(ProviderFixture.loginPassphrase)])
        try fixture.restart()
        XCTAssertEqual(try readWork(fixture, app: "rotation-test"), "False [b'still here']\n")
    }

    /// A login vault with records the earlier way: the key item of a real collection `work`
    /// (its vault in the provider's folder, holding an item) and an alias to it, beside forged
    /// key items planted before the takeover: one naming a file outside the folder, one the
    /// login vault, one a symbolic link in the folder to the login vault, one a vault in the
    /// folder its key does not open. The provider serves `work` with its item and alias; the
    /// old items of `work` and its alias are gone; the forged ones open nothing, name no
    /// collection and delete nothing; a restart changes nothing. Before, every forged item was a
    /// collection, and deleting it deleted what it named.
    func testRecordsOfEarlierVersionsAreTakenOverOnceTrustingNoPath() throws {
        var victimPath = ""
        var evilLinkPath = ""
        let fixture = try ProviderFixture { layout in
            let folder = ProviderFolder(loginVaultPath: CollectionRegistry.realPath(layout.loginURL.path))
            let key = SecureBytes.random(count: 32)
            let work = try Vault.create(at: URL(fileURLWithPath: folder.vaultPath(of: "work")), with: .key(key))
            try work.setAccessPolicy(.open)  // the test's own process stores what a client reads
            try work.set(Data("kept in work".utf8), for: .genericPassword(service: "svc.example", account: "ada"))
            work.lock()
            func oldRecord(_ name: String, key: SecureBytes, path: String) throws {
                try key.withUnsafeBytes { bytes in
                    try layout.login.set(Data(bytes), for: .genericPassword(service: "coffer:collection", account: name), options: ItemOptions(
                        label: name.capitalized, custom: ["coffer:vault": path, "xdg:schema": "coffer.CollectionKey"]))
                }
            }
            try oldRecord("work", key: key, path: folder.vaultPath(of: "work"))
            try layout.login.set(Data("work".utf8), for: .genericPassword(service: "coffer:alias", account: "office"))

            let outside = layout.loginURL.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("victim.txt")
            try Data("precious".utf8).write(to: outside)
            victimPath = outside.path
            try oldRecord("outside", key: .random(count: 32), path: outside.path)
            try oldRecord("loginvault", key: .random(count: 32), path: CollectionRegistry.realPath(layout.loginURL.path))
            evilLinkPath = folder.vaultPath(of: "link")
            try FileManager.default.createSymbolicLink(atPath: evilLinkPath, withDestinationPath: CollectionRegistry.realPath(layout.loginURL.path))
            try oldRecord("link", key: .random(count: 32), path: evilLinkPath)
            _ = try Vault.create(at: URL(fileURLWithPath: folder.vaultPath(of: "otherkey")), with: .key(.random(count: 32)))
            try oldRecord("otherkey", key: .random(count: 32), path: folder.vaultPath(of: "otherkey"))
        }
        let work = "/org/freedesktop/secrets/collection/work"
        for round in ["first start", "after a restart"] {
            XCTAssertEqual(try collections(fixture), [Self.login, work], round)
            let answers = try fixture.calls([
                Self.openSession,
                Call("search", work, Call.collectionInterface, "SearchItems", "a{ss}", [["service": "svc.example"]]),
                Call("alias", Call.service, Call.serviceInterface, "ReadAlias", "s", ["office"]),
                Call("outside", "/org/freedesktop/secrets/collection/outside", Call.collectionInterface, "Delete"),
                Call("loginvault", "/org/freedesktop/secrets/collection/loginvault", Call.collectionInterface, "Delete"),
                Call("link", "/org/freedesktop/secrets/collection/link", Call.collectionInterface, "Delete"),
                Call("otherkey", "/org/freedesktop/secrets/collection/otherkey", Call.collectionInterface, "Delete"),
            ])
            let found = try XCTUnwrap(answers["search"]?.reply?.first as? [String], round)
            XCTAssertEqual(found.count, 1, round)
            let secret = try fixture.calls([Self.openSession, Call("secret", found[0], Call.itemInterface, "GetSecret", "o", ["$session"])])
            XCTAssertEqual((secret["secret"]?.reply?.first as? [Any])?[2] as? String, "kept in work", round)
            XCTAssertEqual(answers["alias"]?.reply?.first as? String, work, round)
            for name in ["outside", "loginvault", "link", "otherkey"] {
                XCTAssertEqual(answers[name]?.error, "org.freedesktop.Secret.Error.NoSuchObject", "\(round): \(name)")
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: victimPath)), Data("precious".utf8), round)
            XCTAssertTrue(FileManager.default.fileExists(atPath: fixture.loginURL.path), round)
            XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: evilLinkPath), round)
            try fixture.restart()
        }
        let login = fixture.login
        XCTAssertNil(try login.item(for: .genericPassword(service: "coffer:collection", account: "work")), "taken over: gone")
        XCTAssertNil(try login.item(for: .genericPassword(service: "coffer:alias", account: "office")), "taken over: gone")
        XCTAssertNotNil(try login.item(for: .genericPassword(service: "coffer:collection", account: "outside")), "left as it is, inert")
        XCTAssertTrue(try ProviderRecords.isMigrated(login))
    }
}
