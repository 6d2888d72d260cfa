@testable import CofferDevBackend
import XCTest

/// The authorization endpoint without auto-approval: the path a person takes in a browser.
final class LoginFormTests: OpenIDTestCase {
    override func setUp() async throws {
        try await super.setUp()
        try await restart { $0.openID.autoApproveUser = nil }
    }

    /// The form for the request's parameters, then the credentials POSTed back: a redirect with a
    /// code that works, the nonce kept.
    func testLoginFormThenAllow() async throws {
        let request = OpenIDFlow.Request()
        let page = try await flow.authorize(request)
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["content-type"], "text/html; charset=utf-8")
        XCTAssertEqual(page.headers["cache-control"], "no-store")
        XCTAssertTrue(page.text.contains(#"<form method="post" action="/oidc/authorize">"#), page.text)
        for (name, value) in request.pairs {
            XCTAssertTrue(page.text.contains(#"name="\#(name)" value="\#(value)""#), name)
        }

        let wrong = try await submit(request, [("username", "demo"), ("password", "nope"), ("action", "allow")])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertTrue(wrong.text.contains("Wrong user name or password."))
        XCTAssertNil(wrong.headers["location"])

        let allowed = try await submit(request, [("username", "demo"), ("password", "demo-password"), ("action", "allow")])
        XCTAssertEqual(allowed.status, 302)
        XCTAssertEqual(allowed.redirectParameters["state"], request.state)
        XCTAssertEqual(allowed.redirectParameters["iss"], backend.issuer.absoluteString)
        let code = try XCTUnwrap(allowed.redirectParameters["code"])
        let tokens = try await flow.exchange(code, request)
        let idToken = try XCTUnwrap(tokens.json?["id_token"]?.stringValue)
        let claims = try await flow.verify(idToken)
        XCTAssertEqual(claims.nonce, request.nonce)
        XCTAssertEqual(claims.preferred_username, "demo")
    }

    /// Deny sends access_denied with the state and the issuer.
    func testDeny() async throws {
        let request = OpenIDFlow.Request()
        let denied = try await submit(request, [("action", "deny")])
        XCTAssertEqual(denied.status, 302)
        XCTAssertEqual(denied.redirectParameters["error"], "access_denied")
        XCTAssertEqual(denied.redirectParameters["state"], request.state)
        XCTAssertEqual(denied.redirectParameters["iss"], backend.issuer.absoluteString)
        XCTAssertNil(denied.redirectParameters["code"])
    }

    /// The POST is checked like the GET: a tampered redirect URI gets the 400 page.
    func testPostIsCheckedAgain() async throws {
        var request = OpenIDFlow.Request()
        request.redirectURI = "http://evil.example/callback"
        let reply = try await submit(request, [("username", "demo"), ("password", "demo-password"), ("action", "allow")])
        XCTAssertEqual(reply.status, 400)
        XCTAssertNil(reply.headers["location"])
    }

    /// prompt=none cannot show a form: login_required.
    func testPromptNoneIsLoginRequired() async throws {
        let request = OpenIDFlow.Request()
        let reply = try await flow.authorize(request, extra: [("prompt", "none")])
        XCTAssertEqual(reply.status, 302)
        XCTAssertEqual(reply.redirectParameters["error"], "login_required")
    }

    /// User names and values are escaped in the page.
    func testPageEscapesValues() async throws {
        var request = OpenIDFlow.Request()
        request.state = #"<script>"x"&'"#
        let page = try await flow.authorize(request)
        XCTAssertFalse(page.text.contains("<script>"))
        XCTAssertTrue(page.text.contains("&lt;script&gt;&quot;x&quot;&amp;&#39;"), page.text)
    }

    private func submit(_ request: OpenIDFlow.Request, _ fields: [(String, String)]) async throws -> RawClient.Reply {
        try await client.send(.POST, "/oidc/authorize", backendID: nil, form: URLForm.encode(request.pairs + fields))
    }
}
