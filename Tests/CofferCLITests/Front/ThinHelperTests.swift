import CofferTestSupport
import Foundation
import XCTest

/// The thin credential helpers (issue 29, `ThinHelperGet`): git-credential-coffer's and
/// docker-credential-coffer's `get` through the agent is one `helperGet` request, answered by
/// the helper's own rules in the agent, with none of Foundation, glib, gio, libsecret or
/// libgcrypt loaded; and every request, well-formed or not, gets exactly what the full helper
/// gives it reading the vault itself (`COFFER_NO_AGENT=1`): the same stdout, stderr and exit
/// status. What the agent does not answer goes to the full helper with stdin given back.
final class ThinHelperTests: CredentialHelperTestCase {
    private let site = "protocol=https\nhost=git.example\n"
    private let fullHelper: [String: String?] = ["COFFER_NO_AGENT": "1"]

    override func setUpWithError() throws {
        try initVault()
        try startAgentHoldingTheVault()
        for login in [
            "username=ada\npassword=s3cret\n", "username=bob\npassword=hunter2\npassword_expiry_utc=4102444800\n",
        ] {
            let stored = try gitHelper(["store"], site + login + "\n")
            XCTAssertEqual(stored.status, 0, stored.stderrText)
        }
        let expired = try gitHelper(["store"], "protocol=https\nhost=old.example\nusername=ada\npassword=p\npassword_expiry_utc=1000\n\n")
        XCTAssertEqual(expired.status, 0, expired.stderrText)
        let docker = try dockerHelper(["store"], #"{"ServerURL":"https://registry.example","Username":"robot","Secret":"t0ken"}"#)
        XCTAssertEqual(docker.status, 0, docker.stdoutText)
    }

    /// Runs `path arguments…` with `input` through the agent (thin) and without it (full), and
    /// asserts the two runs alike; returns the thin run's output, the loader's lines removed.
    @discardableResult
    private func assertSameAsFull(
        _ path: String, _ arguments: [String], _ input: [UInt8], file: StaticString = #filePath, line: UInt = #line
    ) throws -> (output: ChildProcess.Output, stderr: String, heavy: [String]) {
        let thin = try helper(path, arguments, stdin: Data(input), environment: LoadedLibraries.tracing)
        let full = try helper(path, arguments, stdin: Data(input), environment: fullHelper)
        let thinStderr = LoadedLibraries.stderrWithoutTracing(thin)
        XCTAssertEqual(thin.stdoutText, full.stdoutText, file: file, line: line)
        XCTAssertEqual(thinStderr, full.stderrText, file: file, line: line)
        XCTAssertEqual(thin.status, full.status, file: file, line: line)
        XCTAssertFalse(LoadedLibraries.names(in: thin).isEmpty, "the loader reported", file: file, line: line)
        return (thin, thinStderr, LoadedLibraries.heavy(in: thin))
    }

    /// git's requests the agent answers: a login, the newest of two, none (an empty answer,
    /// success), an expired one (never answered), with and without the blank line, with CRLF,
    /// with what follows the blank line: each answered as the full helper answers it, with no
    /// heavy library loaded.
    func testGitGetsThroughTheAgentAreAnsweredThinAndAsTheFullHelperAnswers() throws {
        let requests = [
            site + "username=ada\n\n", site + "\n", site + "username=bob", "protocol=https\r\nhost=git.example\r\nusername=ada\r\n\r\n",
            "protocol=https\nhost=nowhere.example\n\n", "protocol=https\nhost=old.example\n\n", site + "username=ada\n\nusername=bob\n",
            "capability[]=authtype\n" + site + "\n",
        ]
        let answers = try requests.map { request in
            let run = try assertSameAsFull(Self.gitHelperPath, ["get"], Array(request.utf8))
            XCTAssertEqual(run.output.status, 0, run.stderr)
            XCTAssertEqual(run.heavy, [], "\(request.debugDescription) loaded the full helper")
            return run.output.stdoutText
        }
        XCTAssertEqual(answers[0], "username=ada\npassword=s3cret\n")
        XCTAssertEqual(answers[2], "username=bob\npassword=hunter2\npassword_expiry_utc=4102444800\n")
        XCTAssertEqual(answers[4], "", "no login for that host")
        XCTAssertEqual(answers[5], "username=ada\n", "an expired password is never answered")
        XCTAssertEqual(answers[6], answers[0], "reading stops at the blank line")

        let viaOption = try assertSameAsFull(Self.gitHelperPath, ["--vault", vault.path, "get"], Array((site + "username=ada\n\n").utf8))
        XCTAssertEqual(viaOption.output.stdoutText, answers[0])
        XCTAssertEqual(viaOption.heavy, [])
    }

    /// Requests the full helper refuses (a line past 65,535 bytes, a NUL byte, a line with no
    /// `=`, a host that is not UTF-8, more than 1 MiB without a blank line) are refused alike:
    /// the agent refuses them too, and the thin helper gives stdin back to the full one, which
    /// reads the same bytes and says why.
    func testGitRequestsTheFullHelperRefusesAreRefusedAlikeWithStdinGivenBack() throws {
        let longLine = Array((site + "wwwauth[]=" + String(repeating: "x", count: 65_536) + "\n\n").utf8)
        let manyLines = Array(site.utf8) + Array(repeating: Array("wwwauth[]=Basic realm=\"x\"\n".utf8), count: 50_000).flatMap { $0 }
        for request in [
            longLine, Array("protocol=https\nhost=git.example\nusername=ada\u{0}\n\n".utf8), Array("protocol=https\nhost\n\n".utf8),
            Array("protocol=https\nhost=".utf8) + [0xFF] + Array("\n\n".utf8), manyLines,
        ] {
            let run = try assertSameAsFull(Self.gitHelperPath, ["get"], request)
            XCTAssertEqual(run.output.exitStatus, .dataError, run.stderr)
            XCTAssertTrue(run.stderr.hasPrefix("git-credential-coffer: refused the request: "), run.stderr)
            XCTAssertEqual(run.output.stdoutText, "")
        }
    }

    /// A stored credential whose username holds a line break is not answered (exit 65), through
    /// the agent as without it: the agent's answer is a refusal, and the full helper reports it.
    func testAnUnanswerableCredentialIsReportedByTheFullHelper() throws {
        let stored = try gitHelper(["store"], "protocol=https\nhost=odd.example\nusername=a\rb\npassword=p\n\n")
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        let run = try assertSameAsFull(Self.gitHelperPath, ["get"], Array("protocol=https\nhost=odd.example\n\n".utf8))
        XCTAssertEqual(run.output.exitStatus, .dataError, run.stderr)
        XCTAssertEqual(run.output.stdoutText, "")
    }

    /// docker's `get` through the agent: the JSON the full helper prints, and for a server with no
    /// credentials (what every pull from a public registry asks) its "not found" line and status,
    /// both with no heavy library loaded; an empty input and an input over 1 MiB are the full
    /// helper's errors, from the same stdin given back.
    func testDockerGetsThroughTheAgentAreAnsweredThinAndErrorsByTheFullHelper() throws {
        let found = try assertSameAsFull(Self.dockerHelperPath, ["get"], Array("https://registry.example\n".utf8))
        XCTAssertEqual(found.output.status, 0, found.output.stdoutText)
        XCTAssertEqual(found.output.stdoutText, #"{"ServerURL":"https://registry.example","Username":"robot","Secret":"t0ken"}"# + "\n")
        XCTAssertEqual(found.heavy, [])

        for (input, message, thin) in [
            (Array("https://elsewhere.example".utf8), "credentials not found in native keychain", true),
            (Array("  \n".utf8), "no credentials server URL", false),
            (Array(repeating: UInt8(ascii: "x"), count: (1 << 20) + 10), "the input is larger than 1048576 bytes", false),
        ] {
            let run = try assertSameAsFull(Self.dockerHelperPath, ["get"], input)
            XCTAssertEqual(run.output.exitStatus, .notFound, message)
            XCTAssertEqual(run.output.stdoutText, message + "\n")
            XCTAssertEqual(run.heavy.isEmpty, thin, "\(message): \(thin ? "loaded the full helper" : "answered thin")")
        }
    }

    /// What the thin helpers never read stdin for (store, erase, another vault's options, no
    /// agent) runs the full helper with stdin untouched: a store through the agent is kept.
    func testOtherOperationsRunTheFullHelperWithStdinUntouched() throws {
        let stored = try helper(Self.gitHelperPath, ["store"], stdin: Data((site + "username=cy\npassword=pw\n\n").utf8), environment: LoadedLibraries.tracing)
        XCTAssertEqual(stored.status, 0, LoadedLibraries.stderrWithoutTracing(stored))
        XCTAssertTrue(LoadedLibraries.heavy(in: stored).contains("libCofferCommands.so"))
        let answer = try gitHelper(["get"], site + "username=cy\n\n")
        XCTAssertEqual(answer.stdoutText, "username=cy\npassword=pw\n")
    }
}
