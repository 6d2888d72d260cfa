import CofferTestSupport
import Foundation
import XCTest

/// The same scripted conversations against `docker-credential-coffer` and against Debian's
/// `docker-credential-secretservice` (golang-docker-credential-helpers 0.6.4) on the test's
/// private gnome-keyring: the same exit statuses, and the same stdout, compared as JSON where it
/// is JSON and as text for the protocol's standard messages. Where the two word an error their
/// own way (malformed JSON, an unknown action) both must print one line and exit 1; `version`
/// names each program.
///
/// A second user for the same URL is not in the script: docker-credential-secretservice 0.6.4
/// then keeps two items and `get` answers whichever the Secret Service lists last, where
/// Coffer keeps one credential a URL, the newer (`DockerCredentialHelperTests.testOneCredentialAServerURLAndIdentityTokens`).
///
/// Debian's `docker-credential-pass` 0.6.4 answers a missing entry with empty JSON and exit 0,
/// unlike docker's other helpers, so it is not the reference.
final class DockerSecretServiceReferenceTests: CredentialHelperTestCase {
    private static let reference = "docker-credential-secretservice"

    /// What a step's two answers must share.
    private enum Expectation {
        /// The same stdout: as JSON, or as text when it is not JSON.
        case sameOutput
        /// Each prints one line of its own wording; the same exit status.
        case ownWording
    }

    private struct Step {
        let action: String
        let input: String
        var expectation = Expectation.sameOutput
    }

    private var conversation: [Step] {
        let hub = "https://index.docker.io/v1/"
        func store(_ url: String, _ user: String, _ secret: String) -> Step {
            Step(action: "store", input: #"{"ServerURL":"\#(url)","Username":"\#(user)","Secret":"\#(secret)"}"#)
        }
        return [
            Step(action: "list", input: ""),
            Step(action: "get", input: hub),
            store(hub, "alice", "s3cret"),
            Step(action: "get", input: hub),
            Step(action: "get", input: "  \(hub)  \n"),
            Step(action: "get", input: "https://index.docker.io/v1"),
            Step(action: "list", input: ""),
            // An identity token.
            store("registry.example:5000", "<token>", "identity-token"),
            Step(action: "get", input: "registry.example:5000"),
            // Go's JSON: keys in any case, other keys ignored, anything after the object ignored.
            Step(action: "store", input: #"{"serverurl":"lower.example","username":"u","secret":"s","Extra":true}"#),
            Step(action: "get", input: "lower.example"),
            Step(action: "store", input: #"{"ServerURL":"trailing.example","Username":"u","Secret":"s"} trailing"#),
            Step(action: "get", input: "trailing.example"),
            // A field's members in order: the last string counts, whatever the key's case; null
            // changes nothing; ſ folds to s; other members are skipped, nested or out of range.
            Step(action: "store", input: #"{"ServerURL":"first.example","serverurl":"last.example","Username":"u","Secret":"s"}"#),
            Step(action: "get", input: "last.example"),
            Step(action: "get", input: "first.example"),
            Step(action: "store", input: #"{"ServerURL":"kept.example","SERVERURL":null,"Username":"u","Secret":"s"}"#),
            Step(action: "get", input: "kept.example"),
            Step(action: "store", input: #"{"ServerURL":"folded.example","Username":"u","\#u{17F}ecret":"long s"}"#),
            Step(action: "get", input: "folded.example"),
            Step(action: "store", input: #"{"Other":{"a":[1,"}\"]"]},"Big":1e999,"ServerURL":"n\u0065sted.example","Username":"u","Secret":"s"}"#),
            Step(action: "get", input: "nested.example"),
            Step(action: "store", input: #"{"ServerURL":5,"ServerURL":"x.example","Username":"u","Secret":"s"}"#, expectation: .ownWording),
            // The standard errors.
            Step(action: "store", input: #"{"ServerURL":"","Username":"u","Secret":"s"}"#),
            Step(action: "store", input: #"{"ServerURL":"x.example","Username":"","Secret":"s"}"#),
            Step(action: "store", input: "null"),
            Step(action: "get", input: ""),
            Step(action: "erase", input: "\n"),
            // An empty secret is stored and reads as not found.
            store("empty.example", "u", ""),
            Step(action: "get", input: "empty.example"),
            // Malformed input, each helper in its own words.
            Step(action: "store", input: #"{"ServerURL":"x","Username":"u","Secret":"s""#, expectation: .ownWording),
            Step(action: "store", input: "not json", expectation: .ownWording),
            Step(action: "store", input: "", expectation: .ownWording),
            Step(action: "store", input: "[1]", expectation: .ownWording),
            Step(action: "store", input: #"{"ServerURL":5,"Username":"u","Secret":"s"}"#, expectation: .ownWording),
            Step(action: "frobnicate", input: "", expectation: .ownWording),
            // Go's scanner checks the whole value, ignored members included: no trailing comma,
            // no leading zero, no number without its digits.
            Step(action: "store", input: #"{"ServerURL":"comma.example","Username":"u","Secret":"s",}"#, expectation: .ownWording),
            Step(action: "store", input: #"{"ServerURL":"comma.example","Username":"u","Secret":"s","Other":[1,{"a":2},]}"#, expectation: .ownWording),
            Step(action: "store", input: #"{"ServerURL":"comma.example","Username":"u","Secret":"s","Other":01}"#, expectation: .ownWording),
            Step(action: "store", input: #"{"ServerURL":"comma.example","Username":"u","Secret":"s","Other":1.}"#, expectation: .ownWording),
            Step(action: "store", input: #"{"ServerURL":"comma.example","Username":"u","Secret":"s","Other":-}"#, expectation: .ownWording),
            Step(action: "store", input: #"{"ServerURL":"comma.example","Username":"u","Secret":"s","Other":1E+}"#, expectation: .ownWording),
            Step(action: "get", input: "comma.example"),
            Step(action: "store", input: #"{"ServerURL":"numbers.example","Username":"u","Secret":"s","Other":[-0.5e-3,0,12E+2,{}]}"#),
            Step(action: "get", input: "numbers.example"),
            // Erase.
            Step(action: "erase", input: "nothing.example"),
            Step(action: "erase", input: hub),
            Step(action: "get", input: hub),
            Step(action: "list", input: ""),
        ]
    }

    override func setUpWithError() throws {
        try SecretServiceTestEnvironment.requireAvailable()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/\(Self.reference)") else {
            throw MissingPrerequisite.error("\(Self.reference) is not installed (golang-docker-credential-helpers; scripts/bootstrap.sh test installs it)")
        }
        try initVault()
        try eraseEverythingInTheReference()
    }

    override func tearDown() {
        try? eraseEverythingInTheReference()
        super.tearDown()
    }

    /// The reference keeps its items in the shared test keyring: start and end with none.
    private func eraseEverythingInTheReference() throws {
        let listed = try ChildProcess.run(Self.reference, ["list"], timeout: .seconds(20))
        let urls = (try? JSONSerialization.jsonObject(with: listed.stdout) as? [String: String]) ?? [:]
        for url in urls.keys {
            _ = try ChildProcess.run(Self.reference, ["erase"], stdin: Data(url.utf8), timeout: .seconds(20))
        }
    }

    func testScriptedConversationsAnswerAsDebiansSecretServiceHelperDoes() throws {
        for (index, step) in conversation.enumerated() {
            let coffer = try dockerHelper([step.action], step.input)
            let reference = try ChildProcess.run(Self.reference, [step.action], stdin: Data(step.input.utf8), timeout: .seconds(20))
            let context = "step \(index): \(step.action) \(step.input)"
            XCTAssertEqual(coffer.status, reference.status, "\(context): \(coffer.stdoutText) | \(reference.stdoutText)")
            XCTAssertEqual(coffer.stderrText, "", context)
            switch step.expectation {
            case .sameOutput:
                let ours = try? JSONSerialization.jsonObject(with: coffer.stdout, options: [.fragmentsAllowed]) as? NSObject
                let theirs = try? JSONSerialization.jsonObject(with: reference.stdout, options: [.fragmentsAllowed]) as? NSObject
                if let theirs {
                    XCTAssertEqual(ours, theirs, context)
                } else {
                    XCTAssertEqual(coffer.stdoutText, reference.stdoutText, context)
                }
            case .ownWording:
                for output in [coffer, reference] {
                    XCTAssertEqual(output.stdoutText.filter { $0 == "\n" }.count, 1, "\(context): \(output.stdoutText)")
                    XCTAssertGreaterThan(output.stdoutText.count, 1, context)
                }
            }
        }
        let version = try dockerHelper(["version"])
        XCTAssertEqual(version.status, try ChildProcess.run(Self.reference, ["version"], timeout: .seconds(20)).status)
    }
}
