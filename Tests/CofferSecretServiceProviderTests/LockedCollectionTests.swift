import Coffer
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// A locked collection as desktop programs meet it (docs/secret-service.md, "Locked
/// collections"): libsecret loads it, its properties show a label, a path and times and never an
/// item's attributes, and a libsecret lookup reaches the `--prompter` through a stand-in that
/// reveals nothing of what the collection holds.
final class LockedCollectionTests: XCTestCase {
    private static let collections = "/org/freedesktop/secrets/collection"

    /// A provider whose login collection holds mail.example/ada ("s3cret") and is locked.
    private func lockedFixture(prompter: String? = nil) throws -> ProviderFixture {
        let fixture = try ProviderFixture(prompter: prompter)
        try fixture.login.set(Data("s3cret".utf8), for: .genericPassword(service: "mail.example", account: "ada"), options: ItemOptions(label: "Mail"))
        fixture.lockLogin()
        return fixture
    }

    /// A prompter that gives the login passphrase and counts its runs in `count` (one byte a run).
    private func countingPrompter(_ count: URL) -> String {
        "printf x >> '\(count.path)'; printf '%s\\n' '\(ProviderFixture.loginPassphrase)'"
    }

    private func runs(_ count: URL) -> Int {
        (try? Data(contentsOf: count))?.count ?? 0
    }

    /// libsecret's `secret_service_get_sync (SECRET_SERVICE_LOAD_COLLECTIONS)` and
    /// `secret_collection_load_items_sync`, what Seahorse and `secret-tool lock` call first, load
    /// a locked login collection and a locked created one: `Items` answers an empty list. (A
    /// regression: `Items` failed with `IsLocked`, `GetAll` left it out, and libsecret failed
    /// on its assertion `paths != NULL`.) Locking the login collection through the Secret Service
    /// locks the created one too. gnome-keyring, with its login keyring locked, loads too, and
    /// lists its items' paths.
    func testLibsecretLoadsALockedCollection() throws {
        let fixture = try ProviderFixture()
        try fixture.login.set(Data("s3cret".utf8), for: .genericPassword(service: "mail.example", account: "ada"))
        let create = """
            import secretstorage
            connection = secretstorage.dbus_init()
            secretstorage.create_collection(connection, "Work")
            secretstorage.get_default_collection(connection).lock()
            """
        let locked = try fixture.python(["-c", create])
        XCTAssertEqual(locked.status, 0, locked.stderrText)
        let loaded = try fixture.libsecret(["collections"])
        XCTAssertEqual(loaded.status, 0, loaded.stderrText)
        XCTAssertEqual(loaded.stdoutText, "\(Self.collections)/login\tLogin\tlocked\t0\n\(Self.collections)/work\tWork\tlocked\t0\n")

        let bus = try PrivateBus()
        try GnomeKeyring.start(on: bus, home: fixture.folder.file("keyring"))
        let environment = bus.clientEnvironment.merging(["HOME": fixture.folder.file("keyring").path]) { $1 }
        let lock = """
            import secretstorage
            connection = secretstorage.dbus_init()
            secretstorage.get_default_collection(connection).create_item("Mail", {"service": "mail.example", "username": "ada"}, b"s3cret")
            secretstorage.get_default_collection(connection).lock()
            """
        let referenceLocked = try ChildProcess.run("/usr/bin/python3", ["-c", lock], environment: environment, timeout: .seconds(30))
        XCTAssertEqual(referenceLocked.status, 0, referenceLocked.stderrText)
        let reference = try ChildProcess.run(
            try CProgram.build(ProviderFixture.fixtures.appendingPathComponent("libsecret_client.c"), named: "libsecret-client", packages: ["libsecret-1"]).path,
            ["collections"], environment: environment, timeout: .seconds(30))
        XCTAssertEqual(reference.status, 0, reference.stderrText)
        XCTAssertTrue(reference.stdoutText.hasPrefix("\(Self.collections)/login\tLogin\tlocked\t1\n"), reference.stdoutText)
    }

    /// Seahorse (GNOME's Passwords and Keys), under Xvfb, read through AT-SPI (the tree screen
    /// readers read): its sidebar lists the locked Login collection with its lock button, and
    /// clicking that button runs the `--prompter` once and unlocks the collection. (A
    /// regression: libsecret could not load the locked collection, and Seahorse left Login out
    /// of its sidebar, so the user had nothing to unlock.)
    func testSeahorseShowsTheLockedLoginCollectionAndUnlocksIt() throws {
        for tool in ["xvfb-run", "seahorse"] where ProviderFixture.which(tool) == nil {
            throw MissingPrerequisite.error("\(tool) is not installed (scripts/bootstrap.sh test installs it)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/libexec/at-spi-bus-launcher") else {
            throw MissingPrerequisite.error("the AT-SPI bus is not installed (Debian: at-spi2-core)")
        }
        let count = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-prompter-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: count) }
        let fixture = try lockedFixture(prompter: countingPrompter(count))
        let screenshots = fixture.folder.file("screenshots")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        let output = try fixture.run(
            "xvfb-run", ["-a", "-s", "-screen 0 1024x768x24", "/usr/bin/python3",
                         ProviderFixture.fixtures.appendingPathComponent("seahorse_sidebar.py").path, screenshots.path],
            timeout: .seconds(180 * TestTiming.scale))
        if output.stderrText.contains("No module named 'pyatspi'") {
            throw MissingPrerequisite.error("python3-pyatspi is not installed (scripts/bootstrap.sh test installs it)")
        }
        XCTAssertEqual(output.status, 0, output.stderrText)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
        let rows = try XCTUnwrap(report["rows"] as? [[String: Any]])
        let login = rows.first { ($0["labels"] as? [String]) == ["Login"] }
        XCTAssertNotNil(login, "Seahorse lists Login: \(rows)")
        XCTAssertEqual(login?["buttons"] as? Int, 1, "with its lock button")
        XCTAssertEqual(report["locked_before"] as? Bool, true)
        XCTAssertEqual(report["locked_after"] as? Bool, false, "the button unlocked it")
        XCTAssertEqual(runs(count), 1, "through the prompter, once")
    }

    /// Every property of a locked login collection and of a locked created collection, read
    /// with `GetAll` and one by one, is what docs/secret-service.md says a locked collection
    /// shows: its label, `Locked` true, its times, and `Items` empty. An item of a locked
    /// collection shows only `Locked` (true); each of its other properties is `IsLocked`. No
    /// answer carries an item's label, attributes or secret.
    func testEveryPropertyOfALockedCollection() throws {
        let fixture = try ProviderFixture()
        let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("locked_client.py").path, "properties"])
        XCTAssertEqual(output.status, 0, output.stderrText)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any], output.stdoutText)
        XCTAssertEqual(report["created_path"] as? String, "\(Self.collections)/work")
        for (name, label) in [("login", "Login"), ("created", "Work")] {
            let collection = try XCTUnwrap(report[name] as? [String: Any], name)
            let all = try XCTUnwrap(collection["getall"] as? [String: Any], "\(name): GetAll answers")
            XCTAssertEqual(Set(all.keys), ["Items", "Label", "Locked", "Created", "Modified"], name)
            XCTAssertEqual(all["Items"] as? [String], [], name)
            XCTAssertEqual(all["Label"] as? String, label, name)
            XCTAssertEqual(all["Locked"] as? Bool, true, name)
            XCTAssertGreaterThan(all["Created"] as? Int ?? 0, 1_700_000_000, "\(name): Created is the vault's creation time")
            XCTAssertGreaterThanOrEqual(all["Modified"] as? Int ?? 0, all["Created"] as? Int ?? .max, "\(name): Modified")
            let one = try XCTUnwrap(collection["get"] as? [String: [String: Any]], name)
            for (property, value) in all {
                XCTAssertEqual(one[property]?["value"].map { "\($0)" }, "\(value)", "\(name).\(property) read alone")
            }
        }
        for name in ["login_item", "created_item"] {
            let item = try XCTUnwrap(report[name] as? [String: Any], name)
            XCTAssertEqual(item["getall"] as? [String: Bool], ["Locked": true], "\(name): GetAll shows Locked alone")
            let one = try XCTUnwrap(item["get"] as? [String: [String: Any]], name)
            XCTAssertEqual(one["Locked"]?["value"] as? Bool, true, name)
            for property in ["Attributes", "Label", "Type", "Created", "Modified"] {
                XCTAssertEqual(one[property]?["error"] as? String, "org.freedesktop.Secret.Error.IsLocked", "\(name).\(property)")
            }
        }
        for secret in ["private.example", "work.example", "Private label", "login secret", "work secret", "ada-q7x", "bob-z9w"] {
            XCTAssertFalse(output.stdoutText.contains(secret), "a locked collection shows \(secret)")
        }
    }

    /// With a `--prompter`, a search of the service lists, for the locked login collection, one
    /// stand-in object in its `locked` list, whatever the search asks: a search for an item
    /// the collection holds and one for an item it does not get the same answer, and the
    /// stand-in shows no attribute, label or time. Without a prompter, `locked` stays empty.
    func testALockedSearchListsAStandInThatRevealsNothing() throws {
        for prompter in ["true", nil] as [String?] {
            let fixture = try ProviderFixture(prompter: prompter)
            let output = try fixture.python([ProviderFixture.fixtures.appendingPathComponent("locked_client.py").path, "search"])
            XCTAssertEqual(output.status, 0, output.stderrText)
            let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: [String: Any]], output.stdoutText)
            var answers: [String] = []
            for name in ["present", "absent"] {
                let search = try XCTUnwrap(report[name], name)
                XCTAssertEqual(search["unlocked"] as? [String], [], name)
                let locked = try XCTUnwrap(search["locked"] as? [String], name)
                guard prompter != nil else {
                    XCTAssertEqual(locked, [], "\(name): with no prompter nothing would unlock, so nothing is listed")
                    continue
                }
                XCTAssertEqual(locked.count, 1, name)
                XCTAssertTrue(locked.first?.hasPrefix("\(Self.collections)/login/") == true, "\(name): \(locked)")
                let objects = try XCTUnwrap(search["objects"] as? [[String: Any]], name)
                let all = try XCTUnwrap(objects.first?["getall"] as? [String: Any], name)
                XCTAssertEqual(all["Locked"] as? Bool, true, name)
                XCTAssertEqual(all["Attributes"] as? [String: String], [:], name)
                XCTAssertEqual(all["Label"] as? String, "", name)
                XCTAssertEqual(all["Type"] as? String, "", name)
                XCTAssertEqual(all["Created"] as? Int, 0, name)
                XCTAssertEqual(all["Modified"] as? Int, 0, name)
                answers.append(String(describing: all.sorted { $0.key < $1.key }))
            }
            if prompter != nil { XCTAssertEqual(answers.first, answers.last, "present and absent look the same") }
            XCTAssertFalse(output.stdoutText.contains("Private label"))
        }
    }

    /// libsecret's lookups, `secret-tool lookup` and `secret_password_lookup_sync`, on a locked
    /// login collection run the `--prompter` once and return the secret, as they do with
    /// gnome-keyring and its own prompter. (A regression: the search listed nothing locked, so
    /// libsecret never called `Unlock` and said "not found" at once.) A lookup of an item the
    /// collection does not hold runs the prompter too (the search cannot tell) and finds nothing.
    func testLibsecretLookupRunsThePrompterOnce() throws {
        let count = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-prompter-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: count) }
        let fixture = try lockedFixture(prompter: countingPrompter(count))

        let tool = try fixture.run("secret-tool", ["lookup", "service", "mail.example", "username", "ada"])
        XCTAssertEqual(tool.status, 0, tool.stderrText)
        XCTAssertEqual(tool.stdoutText, "s3cret")
        XCTAssertEqual(runs(count), 1, "secret-tool: the prompter ran once")

        fixture.lockLogin()
        let library = try fixture.libsecret(["lookup", "service", "mail.example", "username", "ada"])
        XCTAssertEqual(library.status, 0, library.stderrText)
        XCTAssertEqual(library.stdoutText, "s3cret")
        XCTAssertEqual(runs(count), 2, "secret_password_lookup_sync: the prompter ran once")

        fixture.lockLogin()
        let absent = try fixture.libsecret(["lookup", "service", "nothing.example", "username", "ada"])
        XCTAssertEqual(absent.status, 3, "not found: \(absent.stderrText)")
        XCTAssertEqual(runs(count), 3)
        XCTAssertEqual(try fixture.libsecret(["lookup", "service", "mail.example", "username", "ada"]).stdoutText, "s3cret", "unlocked now: no prompt")
        XCTAssertEqual(runs(count), 3)
    }

    /// With no `--prompter`, the same lookups on a locked collection say "not found" within a
    /// second, as before: nothing would unlock it, so nothing waits.
    func testWithoutAPrompterALockedLookupEndsAtOnce() throws {
        let fixture = try lockedFixture()
        let tool = try fixture.run("secret-tool", ["lookup", "service", "mail.example", "username", "ada"])
        let library = try fixture.libsecret(["lookup", "service", "mail.example", "username", "ada"])
        XCTAssertEqual(tool.status, 1, tool.stderrText)
        XCTAssertEqual(tool.stdoutText, "")
        XCTAssertEqual(library.status, 3, library.stderrText)
        for output in [tool, library] {
            XCTAssertLessThan(output.duration, .milliseconds(TestTiming.limit(milliseconds: 1000)))
        }
    }
}
