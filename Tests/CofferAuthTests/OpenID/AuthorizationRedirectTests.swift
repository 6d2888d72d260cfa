@testable import CofferAuth
import Foundation
import XCTest

/// The rules a browser login's redirect must follow (RFC 6749 §4.1.2, RFC 9207).
final class AuthorizationRedirectTests: XCTestCase {
    let provider = OpenIDProvider(
        issuer: URL(string: "https://id.example.com/realm")!, authorizationEndpoint: URL(string: "https://id.example.com/realm/auth?kc=1")!,
        tokenEndpoint: URL(string: "https://id.example.com/realm/token")!)

    private func redirect(_ provider: OpenIDProvider? = nil) -> AuthorizationRedirect {
        AuthorizationRedirect(provider: provider ?? self.provider, clientID: "app", redirectURI: "http://127.0.0.1:5000/callback", scope: "openid profile")
    }

    private func query(_ pairs: [(String, String)]) -> [URLQueryItem] { pairs.map { URLQueryItem(name: $0.0, value: $0.1) } }

    /// The authorization URL carries every parameter of a native-app request, keeps the
    /// endpoint's own query, and sends a nonce for OpenID scopes.
    func testAuthorizationURL() throws {
        let request = redirect()
        let url = try request.authorizationURL(endpoint: try XCTUnwrap(provider.authorizationEndpoint))
        let items = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        let values = Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(values["kc"], "1")
        XCTAssertEqual(values["response_type"], "code")
        XCTAssertEqual(values["client_id"], "app")
        XCTAssertEqual(values["redirect_uri"], "http://127.0.0.1:5000/callback")
        XCTAssertEqual(values["scope"], "openid profile")
        XCTAssertEqual(values["state"], request.state)
        XCTAssertEqual(values["nonce"], request.nonce)
        XCTAssertEqual(values["code_challenge"], request.pkce.challenge)
        XCTAssertEqual(values["code_challenge_method"], "S256")
        XCTAssertNotEqual(request.state, redirect().state, "every login has its own state")
    }

    /// A callback without this login's state, or with a parameter repeated, is not this login's:
    /// refused, and the listener keeps waiting.
    func testForeignCallbacksAreRefused() {
        let request = redirect()
        for items in [
            query([("code", "c")]), query([("code", "c"), ("state", "guess")]),
            query([("code", "c"), ("state", request.state), ("state", request.state)]),
            query([("code", "c"), ("code", "d"), ("state", request.state)]),
        ] {
            guard case .refuse = request.judge(items) else { return XCTFail("accepted \(items)") }
        }
    }

    /// With the state: the code; access_denied and other errors as typed errors; an `iss`
    /// naming another issuer, or none where the provider promised one, is untrusted.
    func testCallbacksWithTheState() {
        let request = redirect()
        func outcome(_ pairs: [(String, String)], _ redirect: AuthorizationRedirect? = nil) -> Result<String, AuthError>? {
            guard case .accept(let result) = (redirect ?? request).judge(query(pairs)) else { return nil }
            return result
        }
        XCTAssertEqual(try outcome([("code", "abc"), ("state", request.state)])?.get(), "abc")
        XCTAssertEqual(try outcome([("code", "abc"), ("state", request.state), ("iss", "https://id.example.com/realm")])?.get(), "abc")
        XCTAssertEqual(outcome([("error", "access_denied"), ("state", request.state)]).map { if case .failure(.accessDenied) = $0 { true } else { false } }, true)
        guard case .failure(.authorizationError("invalid_scope"))? = outcome([("error", "invalid_scope"), ("state", request.state)]) else { return XCTFail() }
        guard case .failure(.untrustedResponse)? = outcome([("code", "abc"), ("state", request.state), ("iss", "https://evil.example")]) else { return XCTFail() }
        var promising = provider
        promising.issuerInAuthorizationResponse = true
        let strict = redirect(promising)
        guard case .failure(.untrustedResponse)? = outcome([("code", "abc"), ("state", strict.state)], strict) else { return XCTFail() }
        guard case .failure(.malformedResponse)? = outcome([("state", request.state)]) else { return XCTFail() }
    }

    /// Error codes from the provider are cut to RFC 6749's character set and 64 characters.
    func testErrorCodesAreSanitised() {
        XCTAssertEqual(AuthorizationRedirect.errorCode("bad\n\u{1B}[31m\"x\\y"), "bad[31mxy")
        XCTAssertEqual(AuthorizationRedirect.errorCode(String(repeating: "e", count: 100)).count, 64)
    }
}
