import CofferTestSupport
import Foundation
import XCTest

/// The same scripted helper conversations against `git-credential-coffer` and against git's own
/// `git-credential-store` (Debian 12's git 2.39): the same answers, field for field, except the
/// fields git-credential-store drops, which Coffer keeps and answers.
///
/// The scenarios follow those git runs against every helper (git's t/lib-credential.sh): an
/// empty store, store and retrieve, protocol, host, user name and path must match, a store
/// overwrites, erase removes only its user, a newer login wins. One rule is left out: git 2.39's
/// git-credential-store erases a login whatever password the request names, where git 2.42
/// and later erase only the matching password (git commit aeb21ce, "credential: avoid erasing
/// distinct password"), as Coffer does (`GitCredentialHelperTests.testEraseFollowsGitsMatchingRules`).
final class GitCredentialStoreReferenceTests: CredentialHelperTestCase {
    private enum Step {
        case store([String])
        case erase([String])
        /// A `get`, with the fields Coffer answers beyond git-credential-store's, if any.
        case get([String], kept: [Field] = [])

        var request: (operation: String, lines: [String]) {
            switch self {
            case .store(let lines): ("store", lines)
            case .erase(let lines): ("erase", lines)
            case .get(let lines, _): ("get", lines)
            }
        }
    }

    /// The fields git-credential-store (git 2.39) never answers.
    private static let droppedByGitCredentialStore: Set<String> = [
        "password_expiry_utc", "oauth_refresh_token", "capability[]", "authtype", "credential",
    ]

    private let future = Int(Date().timeIntervalSince1970) + 86_400

    private var conversation: [Step] {
        let https = ["protocol=https", "host=example.com"]
        return [
            .get(https),
            .store(https + ["username=store-user", "password=store-pass"]),
            .get(https),
            .get(["protocol=http", "host=example.com"]),
            .get(["protocol=https", "host=other.tld"]),
            .get(https + ["username=other"]),
            .get(https + ["username=store-user"]),
            // Paths: one login a path, and a request without a path selects any.
            .store(["protocol=http", "host=path.tld", "path=foo.git", "username=user", "password=pass"]),
            .get(["protocol=http", "host=path.tld", "path=bar.git"]),
            .get(["protocol=http", "host=path.tld", "path=foo.git"]),
            .get(["protocol=http", "host=path.tld"]),
            // A store overwrites.
            .store(https + ["username=user-overwrite", "password=pass1"]),
            .store(https + ["username=user-overwrite", "password=pass2"]),
            .get(https + ["username=user-overwrite"]),
            // Erase removes its user's login only.
            .store(["protocol=https", "host=erase.tld", "username=user-erase1", "password=pass1"]),
            .store(["protocol=https", "host=erase.tld", "username=user-erase2", "password=pass2"]),
            .erase(["protocol=https", "host=erase.tld", "username=user-erase1"]),
            .get(["protocol=https", "host=erase.tld", "username=user-erase1"]),
            .get(["protocol=https", "host=erase.tld", "username=user-erase2"]),
            .erase([]),
            .get(["protocol=https", "host=erase.tld"]),
            // A port is part of the host.
            .store(["protocol=https", "host=port.tld:8443", "username=ada", "password=port-pass"]),
            .get(["protocol=https", "host=port.tld"]),
            .get(["protocol=https", "host=port.tld:8443"]),
            // Without a user name, the newest login.
            .store(["protocol=https", "host=multi.tld", "username=user-a", "password=pass-a"]),
            .store(["protocol=https", "host=multi.tld", "username=user-b", "password=pass-b"]),
            .get(["protocol=https", "host=multi.tld"]),
            // Incomplete logins are not stored.
            .store(["protocol=https", "host=partial.tld", "username=nopass"]),
            .get(["protocol=https", "host=partial.tld"]),
            // Unknown keys are ignored; names are UTF-8; carriage returns end lines.
            .store(["protocol=https", "host=unicode.tld", "x-unknown=1", "username=zoë", "password=pâss wörd"]),
            .get(["protocol=https", "host=unicode.tld", "x-unknown=2"]),
            .get(["protocol=https\r", "host=unicode.tld\r", "username=zoë\r"]),
            // The fields git-credential-store drops, and Coffer keeps.
            .store(["protocol=https", "host=oauth.tld", "username=oauth-user", "password=access-token",
                    "password_expiry_utc=\(future)", "oauth_refresh_token=refresh-token"]),
            .get(["protocol=https", "host=oauth.tld"], kept: [
                Field(key: "password_expiry_utc", value: "\(future)"), Field(key: "oauth_refresh_token", value: "refresh-token"),
            ]),
            .get(["capability[]=authtype", "protocol=https", "host=oauth.tld"], kept: [
                Field(key: "capability[]", value: "authtype"),
                Field(key: "password_expiry_utc", value: "\(future)"), Field(key: "oauth_refresh_token", value: "refresh-token"),
            ]),
        ]
    }

    func testScriptedConversationsAnswerAsGitCredentialStoreDoes() throws {
        try initVault()
        let reference = folder.file("git-credentials")
        for (index, step) in conversation.enumerated() {
            let (operation, lines) = step.request
            let request = lines.map { $0 + "\n" }.joined() + "\n"
            let coffer = try gitHelper([operation], request)
            let store = try git(["credential-store", "--file", reference.path, operation], stdin: request)
            let context = "step \(index): \(operation) \(lines)"
            XCTAssertEqual(coffer.status, 0, "\(context): \(coffer.stderrText)")
            XCTAssertEqual(store.status, 0, "\(context): \(store.stderrText)")
            XCTAssertEqual(coffer.stderrText, "", context)
            guard case .get(_, let kept) = step else {
                XCTAssertEqual(coffer.stdoutText + store.stdoutText, "", context)
                continue
            }
            let answer = Self.fields(coffer.stdoutText)
            XCTAssertEqual(answer.filter { !Self.droppedByGitCredentialStore.contains($0.key) }, Self.fields(store.stdoutText), context)
            XCTAssertEqual(answer.filter { Self.droppedByGitCredentialStore.contains($0.key) }, kept, context)
        }
    }
}
