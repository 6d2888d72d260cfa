import Coffer
import CofferTestSupport
import Foundation
import XCTest

/// Real git (Debian 12's 2.39) with `git-credential-coffer` as its credential helper, cloning,
/// pushing and fetching over smart HTTP from `git http-backend` behind lighttpd with HTTP Basic
/// auth on 127.0.0.1 (``GitHTTPServer``). A `GIT_ASKPASS` script answers git's prompts and logs
/// each one; a wrapper logs each operation git asks of the helper.
final class GitOverHTTPTests: CredentialHelperTestCase {
    private var server: GitHTTPServer?
    private var asks: URL { folder.file("asks.log") }
    private var operations: URL { folder.file("operations.log") }
    private var password: URL { folder.file("password.txt") }

    override func setUpWithError() throws {
        try initVault()
        let serverFolder = folder.file("server")
        try FileManager.default.createDirectory(at: serverFolder, withIntermediateDirectories: false)
        server = try GitHTTPServer(folder: serverFolder, user: "ada", password: "first password")
        try Data("first password".utf8).write(to: password)
        try script("askpass.sh", """
            #!/bin/sh
            echo "$1" >> '\(asks.path)'
            case "$1" in Username*) echo ada ;; *) cat '\(password.path)' ;; esac
            """)
        try script("helper.sh", """
            #!/bin/sh
            echo "$1" >> '\(operations.path)'
            exec '\(Self.gitHelperPath)' "$@"
            """)
    }

    override func tearDown() {
        server?.stop()
        super.tearDown()
    }

    private func script(_ name: String, _ text: String) throws {
        let url = folder.file(name)
        try Data((text + "\n").utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    }

    /// Runs git with the helper (through the logging wrapper) and the askpass script, and
    /// returns its result, the prompts it showed and the helper operations it ran, clearing both logs.
    private func gitWithHelper(
        _ arguments: [String], in directory: URL? = nil, stdin: String = "", environment: [String: String?] = [:]
    ) throws -> (output: ChildProcess.Output, asks: [String], operations: [String]) {
        let configuration = [
            "credential.helper=", "credential.helper=\(folder.file("helper.sh").path)",
            "user.name=Ada", "user.email=ada@example.com", "init.defaultBranch=main", "advice.detachedHead=false",
        ]
        let output = try git(
            (directory.map { ["-C", $0.path] } ?? []) + arguments, configuration: configuration, stdin: stdin,
            environment: environment.merging(["GIT_ASKPASS": folder.file("askpass.sh").path]) { $1 })
        func drain(_ log: URL) -> [String] {
            defer { try? FileManager.default.removeItem(at: log) }
            return ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }
        return (output, drain(asks), drain(operations))
    }

    func testTheFirstCloneAsksOnceTheNextNothingAndAChangedPasswordIsErasedThenAskedAgain() throws {
        let server = try XCTUnwrap(server)
        let origin = "http://127.0.0.1:\(server.port)"

        let first = try gitWithHelper(["clone", "--quiet", server.repositoryURL, folder.file("first").path])
        XCTAssertEqual(first.output.status, 0, first.output.stderrText)
        XCTAssertEqual(first.asks, ["Username for '\(origin)': ", "Password for 'http://ada@127.0.0.1:\(server.port)': "])
        XCTAssertEqual(first.operations, ["get", "store"])
        XCTAssertEqual(try coffer(["list"]).stdoutText, "internet\t\(origin)\tada\tgit credential\n")

        let second = try gitWithHelper(["clone", "--quiet", server.repositoryURL, folder.file("second").path])
        XCTAssertEqual(second.output.status, 0, second.output.stderrText)
        XCTAssertEqual(second.asks, [], "the stored login answers")
        XCTAssertEqual(second.operations, ["get", "store"], "git approves a login that worked")

        let clone = folder.file("second")
        XCTAssertEqual(try gitWithHelper(["commit", "--quiet", "--allow-empty", "-m", "first"], in: clone).output.status, 0)
        let push = try gitWithHelper(["push", "--quiet", "origin", "HEAD:main"], in: clone)
        XCTAssertEqual(push.output.status, 0, push.output.stderrText)
        XCTAssertEqual(push.asks, [])

        try server.setPassword("second password")
        try Data("second password".utf8).write(to: password)
        let refused = try gitWithHelper(["fetch", "--quiet"], in: clone)
        XCTAssertNotEqual(refused.output.status, 0, "the server refused the stored password")
        XCTAssertEqual(refused.operations, ["get", "erase"])
        XCTAssertEqual(refused.asks, [], "git 2.39 gives up on a rejected stored login; the next command asks")
        XCTAssertEqual(try coffer(["list"]).stdoutText, "", "erased")

        let again = try gitWithHelper(["fetch", "--quiet"], in: clone)
        XCTAssertEqual(again.output.status, 0, again.output.stderrText)
        XCTAssertEqual(again.asks.count, 2, "asked again: \(again.asks)")
        XCTAssertEqual(again.operations, ["get", "store"])
        XCTAssertEqual(try coffer(["get", "--internet", origin, "ada"]).stdoutText, "second password")

        let quiet = try gitWithHelper(["fetch", "--quiet"], in: clone)
        XCTAssertEqual(quiet.output.status, 0, quiet.output.stderrText)
        XCTAssertEqual(quiet.asks, [])
    }

    /// `git credential ACTION` with `lines` on stdin; its exit status must be 0.
    private func gitCredential(
        _ action: String, _ lines: [String], environment: [String: String?] = [:], file: StaticString = #filePath, line: UInt = #line
    ) throws -> (output: ChildProcess.Output, asks: [String], operations: [String]) {
        let result = try gitWithHelper(["credential", action], stdin: lines.map { $0 + "\n" }.joined() + "\n", environment: environment)
        XCTAssertEqual(result.output.status, 0, result.output.stderrText, file: file, line: line)
        return result
    }

    private let site = ["protocol=https", "host=git.example"]

    func testGitCredentialFillApproveAndRejectRoundTrip() throws {
        XCTAssertEqual(try gitCredential("approve", site + ["username=ada", "password=s3cret"]).operations, ["store"])

        let filled = try gitCredential("fill", site)
        XCTAssertEqual(filled.output.stdoutText, "protocol=https\nhost=git.example\nusername=ada\npassword=s3cret\n")
        XCTAssertEqual(filled.asks, [])

        XCTAssertEqual(try gitCredential("reject", site + ["username=ada", "password=s3cret"]).operations, ["erase"])

        let asked = try gitCredential("fill", site)
        XCTAssertEqual(asked.output.stdoutText, "protocol=https\nhost=git.example\nusername=ada\npassword=first password\n")
        XCTAssertEqual(asked.asks.count, 2, "nothing stored any more: git asks")
    }

    /// A stored credential whose username holds a newline (written through the vault, as a
    /// Secret Service client can write one over D-Bus), or whose password holds a NUL byte, is
    /// not answered: written out, `ada\nhost=evil.example` would have given git a host of the
    /// item's choosing. The helper says why on stderr and exits 65; git, answered nothing, asks;
    /// the item stays as it was. Before, `git credential fill` printed `host=evil.example`.
    func testAStoredFieldWithALineBreakIsNotAnswered() throws {
        _ = try gitCredential("approve", site + ["username=ada", "password=s3cret"])
        let store = try Vault.open(at: vault, unlock: .passphrase(passphrase))
        let stored = try XCTUnwrap(try store.items(matching: .all).first)
        let cases: [(account: String, secret: Data, field: String)] = [
            ("ada\nhost=evil.example", Data("s3cret".utf8), "username"),
            ("ada", Data("s3\0cret".utf8), "password"),
        ]
        for (account, secret, field) in cases {
            for existing in try store.items(matching: .all) { _ = try store.remove(existing.id) }
            let id = ItemID.internetPassword(server: stored.id.service, account: account)
            try store.set(secret, for: id, options: stored.options)

            let filled = try gitCredential("fill", site)
            XCTAssertFalse(filled.output.stdoutText.contains("evil"), filled.output.stdoutText)
            XCTAssertEqual(filled.output.stdoutText, "protocol=https\nhost=git.example\nusername=ada\npassword=first password\n", field)
            XCTAssertEqual(filled.asks.count, 2, "no answer from the helper: git asks (\(field))")
            XCTAssertTrue(filled.output.stderrText.contains(
                "git-credential-coffer: the stored credential's \(field) holds a newline, carriage return or NUL byte"), filled.output.stderrText)

            let direct = try gitHelper(["get"], "protocol=https\nhost=git.example\n\n")
            XCTAssertEqual(direct.exitStatus, .dataError, direct.stderrText)
            XCTAssertEqual(direct.stdoutText, "", "nothing answered")
            XCTAssertEqual(try store.items(matching: .all).map(\.id), [id], "the item stays as it was")
            XCTAssertEqual(try store.secret(for: id), secret)
        }
    }

    func testGitAsksWhenTheVaultCannotBeUnlocked() throws {
        _ = try gitCredential("approve", site + ["username=ada", "password=s3cret"])
        let filled = try gitCredential("fill", site, environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(filled.output.stdoutText, "protocol=https\nhost=git.example\nusername=ada\npassword=first password\n")
        XCTAssertEqual(filled.asks.count, 2, "no answer from the helper: git asks")
        XCTAssertTrue(filled.output.stderrText.contains("git-credential-coffer: cannot use the vault: no passphrase"), filled.output.stderrText)
        XCTAssertLessThan(filled.output.duration, .milliseconds(TestTiming.limit(milliseconds: 10000)))
    }

    func testTheOneLineSetupFindsTheHelperOnThePathAndTakesOptionsInTheHelperString() throws {
        let path = BuiltProducts.folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let request = (site + ["username=ada", "password=s3cret"]).map { $0 + "\n" }.joined() + "\n"
        let approved = try git(["credential", "approve"], configuration: ["credential.helper=coffer"], stdin: request, environment: ["PATH": path])
        XCTAssertEqual(approved.status, 0, approved.stderrText)
        XCTAssertEqual(try coffer(["get", "--internet", "https://git.example", "ada"]).stdoutText, "s3cret")

        let filled = try git(
            ["credential", "fill"], configuration: ["credential.helper=coffer --vault '\(vault.path)'"], stdin: "protocol=https\nhost=git.example\n\n",
            environment: ["PATH": path, "COFFER_VAULT": nil])
        XCTAssertEqual(filled.status, 0, filled.stderrText)
        XCTAssertEqual(filled.stdoutText, "protocol=https\nhost=git.example\nusername=ada\npassword=s3cret\n")
    }
}
