import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// `docker-credential-coffer` spoken to as docker speaks to it: its five actions, its errors
/// (one line on stdout, exit status 1), identity tokens, the vault through the agent, and a vault
/// it cannot unlock. `DockerSecretServiceReferenceTests` compares it with Debian's helper.
final class DockerCredentialHelperTests: CredentialHelperTestCase {
    private let hub = "https://index.docker.io/v1/"

    override func setUpWithError() throws {
        try initVault()
    }

    private func store(_ url: String, _ user: String, _ secret: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let stored = try dockerHelper(["store"], #"{"ServerURL":"\#(url)","Username":"\#(user)","Secret":"\#(secret)"}"#)
        XCTAssertEqual(stored.status, 0, stored.stdoutText, file: file, line: line)
        XCTAssertEqual(stored.stdoutText + stored.stderrText, "", file: file, line: line)
    }

    private func json(_ output: ChildProcess.Output) -> NSObject? {
        try? JSONSerialization.jsonObject(with: output.stdout) as? NSObject
    }

    /// docker's protocol has one status for every error, 1: coffer's "not found" in number only.
    private let dockerError = ExitStatus.notFound

    /// Asserts a docker helper error: exit status 1, `message` alone on stdout, nothing on stderr.
    private func assertError(_ output: ChildProcess.Output, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(output.exitStatus, dockerError, file: file, line: line)
        XCTAssertEqual(output.stdoutText, message + "\n", file: file, line: line)
        XCTAssertEqual(output.stderrText, "", file: file, line: line)
    }

    func testStoreGetListAndEraseAndCofferListShowsTheItems() throws {
        assertError(try dockerHelper(["get"], hub), "credentials not found in native keychain")
        XCTAssertEqual(try dockerHelper(["list"]).stdoutText, "{}\n")
        try store(hub, "ada", "s3cret")
        let got = try dockerHelper(["get"], hub + "\n")
        XCTAssertEqual(got.status, 0, got.stdoutText)
        XCTAssertEqual(got.stdoutText, #"{"ServerURL":"https://index.docker.io/v1/","Username":"ada","Secret":"s3cret"}"# + "\n")
        XCTAssertEqual(json(try dockerHelper(["list"])), ["https://index.docker.io/v1/": "ada"] as NSDictionary)
        XCTAssertEqual(try coffer(["list"]).stdoutText, "internet\thttps://index.docker.io/v1/\tada\tDocker Credentials\n")
        let attributes = try JSONSerialization.jsonObject(with: try coffer(["list", "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(attributes?.first?["internet"] as? [String: String], ["protocol": "https", "path": "/v1/"])

        let erased = try dockerHelper(["erase"], hub)
        XCTAssertEqual(erased.status, 0, erased.stdoutText)
        assertError(try dockerHelper(["get"], hub), "credentials not found in native keychain")
        XCTAssertEqual(try dockerHelper(["erase"], hub).status, 0, "erasing nothing is not an error")
    }

    func testOneCredentialAServerURLAndIdentityTokens() throws {
        try store(hub, "ada", "one")
        try store(hub, "bob", "two")
        XCTAssertEqual(json(try dockerHelper(["get"], hub)), ["ServerURL": hub, "Username": "bob", "Secret": "two"] as NSDictionary)
        XCTAssertEqual(try coffer(["list"]).stdoutText.split(separator: "\n").count, 1, "bob's replaced ada's")

        try store("registry.example:5000", "<token>", "identity-token")
        XCTAssertEqual(
            json(try dockerHelper(["get"], "registry.example:5000")),
            ["ServerURL": "registry.example:5000", "Username": "<token>", "Secret": "identity-token"] as NSDictionary)
        let attributes = try JSONSerialization.jsonObject(with: try coffer(["list", "--json"]).stdout) as? [[String: Any]]
        XCTAssertEqual(attributes?.first { $0["account"] as? String == "<token>" }?["internet"] as? [String: Int], ["port": 5000])
    }

    func testErrorsAreOneLineOnStdoutWithExitStatusOne() throws {
        assertError(try dockerHelper(["frobnicate"]), "docker-credential-coffer: unknown action: frobnicate")
        assertError(try dockerHelper(["store"], #"{"ServerURL":"","Username":"ada","Secret":"s"}"#), "no credentials server URL")
        assertError(try dockerHelper(["store"], #"{"ServerURL":"x","Secret":"s"}"#), "no credentials username")
        assertError(try dockerHelper(["store"], "null"), "no credentials server URL")
        assertError(try dockerHelper(["store"], #"{"ServerURL":"x","Username":"u""#), "invalid credentials JSON: unexpected end of input")
        assertError(try dockerHelper(["store"], "not json"), "invalid credentials JSON: malformed JSON")
        assertError(try dockerHelper(["store"], "[1]"), "invalid credentials JSON: the credentials are not a JSON object")
        assertError(try dockerHelper(["store"], #"{"ServerURL":5,"Username":"u"}"#), "invalid credentials JSON: ServerURL is not a JSON string")
        assertError(try dockerHelper(["get"], " \n"), "no credentials server URL")
        assertError(try dockerHelper(["erase"], ""), "no credentials server URL")
        let noAction = try dockerHelper([])
        XCTAssertEqual(noAction.exitStatus, dockerError)
        XCTAssertTrue(noAction.stdoutText.hasSuffix("(usage: docker-credential-coffer [options] <store|get|erase|list|version>)\n"), noAction.stdoutText)
        XCTAssertEqual(try coffer(["list"]).stdoutText, "", "nothing stored")
    }

    func testJSONIsReadAsDockersHelpersReadIt() throws {
        let stored = try dockerHelper(["store"], "{\"serverurl\": \"lower.example\",\n \"USERNAME\": \"u\", \"Secret\": \"s\", \"Other\": 1} and more")
        XCTAssertEqual(stored.status, 0, stored.stdoutText)
        XCTAssertEqual(json(try dockerHelper(["get"], "lower.example")), ["ServerURL": "lower.example", "Username": "u", "Secret": "s"] as NSDictionary)
        try store("empty.example", "u", "")
        assertError(try dockerHelper(["get"], "empty.example"), "credentials not found in native keychain")
    }

    /// A repeated key's last value counts, as in Go's encoding/json; nested values of other keys
    /// (brackets and quotes inside strings included) are skipped, and escapes are decoded.
    func testARepeatedKeyTakesItsLastValueAsGoDoes() throws {
        let input = #"{"Other": {"a": [1, "}\"]"]}, "ServerURL": "first.example", "ServerURL": "l\u0061st.example", "Username": "u", "Secret": "s"}"#
        let stored = try dockerHelper(["store"], input)
        XCTAssertEqual(stored.status, 0, stored.stdoutText)
        XCTAssertEqual(json(try dockerHelper(["get"], "last.example")), ["ServerURL": "last.example", "Username": "u", "Secret": "s"] as NSDictionary)
        assertError(try dockerHelper(["get"], "first.example"), "credentials not found in native keychain")
    }

    /// A member the helper ignores must still be JSON (as Go's scanner requires): a trailing
    /// comma or a malformed number anywhere is malformed input, and nothing is stored.
    func testMalformedJSONInAnIgnoredMemberIsRefused() throws {
        for other in ["[1,]", "{\"a\":1,}", "01", "1.", "-", "1e", "[1 2]"] {
            let input = #"{"ServerURL": "x.example", "Username": "u", "Secret": "s", "Other": \#(other)}"#
            assertError(try dockerHelper(["store"], input), "invalid credentials JSON: malformed JSON")
        }
        assertError(try dockerHelper(["store"], #"{"ServerURL": "x.example", "Username": "u", "Secret": "s",}"#), "invalid credentials JSON: malformed JSON")
        assertError(try dockerHelper(["get"], "x.example"), "credentials not found in native keychain")
        XCTAssertEqual(try coffer(["list"]).stdoutText, "", "nothing stored")
    }

    func testVersion() throws {
        let version = try dockerHelper(["version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertEqual(version.stdoutText, "docker-credential-coffer (Coffer) 0.1.0\n")
    }

    func testThroughTheAgentNoCredentialIsNeeded() throws {
        try startAgentHoldingTheVault()
        let noPassphrase: [String: String?] = ["COFFER_PASSPHRASE": nil]
        XCTAssertEqual(try dockerHelper(["store"], #"{"ServerURL":"r.example","Username":"ada","Secret":"s"}"#, environment: noPassphrase).status, 0)
        XCTAssertEqual(json(try dockerHelper(["get"], "r.example", environment: noPassphrase)), ["ServerURL": "r.example", "Username": "ada", "Secret": "s"] as NSDictionary)
        XCTAssertEqual(json(try dockerHelper(["list"], environment: noPassphrase)), ["r.example": "ada"] as NSDictionary)
    }

    func testAVaultItCannotUnlockIsAnErrorWithinSeconds() throws {
        let locked = try dockerHelper(["get"], hub, environment: ["COFFER_PASSPHRASE": nil])
        assertError(locked, "cannot use the vault: no passphrase: use --passphrase-fd or $COFFER_PASSPHRASE, a key file, or `coffer unlock` with the agent (no prompt here)")
        XCTAssertLessThan(locked.duration, .milliseconds(TestTiming.limit(milliseconds: 5000)))
    }

    func testAnItemTheHelperDidNotWriteIsNeitherAnsweredNorReplaced() throws {
        XCTAssertEqual(try coffer(["set", "--internet", "r.example", "ada"], stdin: Data("mine".utf8)).status, 0)
        assertError(try dockerHelper(["get"], "r.example"), "credentials not found in native keychain")
        let refused = try dockerHelper(["store"], #"{"ServerURL":"r.example","Username":"ada","Secret":"s"}"#)
        XCTAssertEqual(refused.exitStatus, dockerError)
        XCTAssertTrue(refused.stdoutText.contains("did not write; not replacing it"), refused.stdoutText)
        XCTAssertEqual(try coffer(["get", "--internet", "r.example", "ada"]).stdoutText, "mine")
    }
}
