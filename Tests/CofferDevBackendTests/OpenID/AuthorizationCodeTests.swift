@testable import CofferDevBackend
import XCTest

final class AuthorizationCodeTests: OpenIDTestCase {
    /// Auto-approval redirects at once with a code, the state and the exact issuer; the code and
    /// the right verifier give an RFC 6749 §5.1 reply with an ID token and a refresh token.
    func testAuthorizeThenExchangeWithPKCE() async throws {
        let request = OpenIDFlow.Request()
        let redirect = try await flow.authorize(request)
        XCTAssertEqual(redirect.status, 302)
        XCTAssertTrue(redirect.headers["location"]?.hasPrefix(request.redirectURI + "?") == true, redirect.headers["location"] ?? "")
        XCTAssertEqual(redirect.headers["cache-control"], "no-store")
        let parameters = redirect.redirectParameters
        XCTAssertEqual(parameters["state"], request.state)
        XCTAssertEqual(parameters["iss"], backend.issuer.absoluteString)
        let code = try XCTUnwrap(parameters["code"])

        let reply = try await flow.exchange(code, request)
        XCTAssertEqual(reply.status, 200, "\(String(describing: reply.json))")
        XCTAssertEqual(reply.headers["cache-control"], "no-store")
        let json = try XCTUnwrap(reply.json)
        XCTAssertEqual(json["token_type"]?.stringValue, "Bearer")
        XCTAssertEqual(json["expires_in"]?.intValue, 300)
        XCTAssertEqual(json["scope"]?.stringValue, request.scope)
        XCTAssertNotNil(json["access_token"]?.stringValue)
        XCTAssertNotNil(json["refresh_token"]?.stringValue)
        XCTAssertNotNil(json["id_token"]?.stringValue)
        XCTAssertEqual(backend.statistics.openIDCodeExchanges, 1)
        XCTAssertEqual(backend.statistics.openIDAuthorizations, 1)

        let protected = try await client.send(.GET, "/protected", authorization: "Bearer \(json["access_token"]?.stringValue ?? "")")
        XCTAssertEqual(protected.json?["authenticatedBy"]?.stringValue, "openid")
    }

    /// A wrong verifier, a wrong redirect URI, another client, a missing verifier: invalid_grant,
    /// and the code is spent by the attempt.
    func testWrongVerifierOrRedirectURIIsInvalidGrant() async throws {
        let request = OpenIDFlow.Request()
        let wrongVerifier = try await flow.exchange(try await flow.code(request), request, verifier: OpenIDFlow.PKCEPair().verifier)
        XCTAssertEqual(wrongVerifier.status, 400)
        XCTAssertEqual(wrongVerifier.json?["error"]?.stringValue, "invalid_grant")

        let wrongRedirect = try await flow.exchange(
            try await flow.code(request), request, redirectURI: "http://127.0.0.1:1/callback")
        XCTAssertEqual(wrongRedirect.json?["error"]?.stringValue, "invalid_grant")

        let code = try await flow.code(request)
        let otherClient = try await flow.tokenRequest(
            [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI), ("code_verifier", request.pkce.verifier)],
            clientID: OpenIDFlow.confidential.id, secret: OpenIDFlow.confidential.secret)
        XCTAssertEqual(otherClient.json?["error"]?.stringValue, "invalid_grant")
        let spent = try await flow.exchange(code, request)
        XCTAssertEqual(spent.json?["error"]?.stringValue, "invalid_grant", "a code is spent by a failed attempt")

        let noVerifier = try await flow.tokenRequest(
            [("grant_type", "authorization_code"), ("code", try await flow.code(request)), ("redirect_uri", request.redirectURI)])
        XCTAssertEqual(noVerifier.json?["error"]?.stringValue, "invalid_grant")
    }

    /// A code used twice: invalid_grant, and the tokens of its first use are revoked (RFC 6749 §4.1.2).
    func testCodeReuseIsInvalidGrantAndRevokesItsTokens() async throws {
        let request = OpenIDFlow.Request()
        let code = try await flow.code(request)
        let first = try await flow.exchange(code, request)
        let access = try XCTUnwrap(first.json?["access_token"]?.stringValue)
        let refresh = try XCTUnwrap(first.json?["refresh_token"]?.stringValue)
        let reused = try await flow.exchange(code, request)
        XCTAssertEqual(reused.status, 400)
        XCTAssertEqual(reused.json?["error"]?.stringValue, "invalid_grant")
        let userinfo = try await flow.userinfo(access)
        XCTAssertEqual(userinfo.status, 401)
        let refreshed = try await flow.refresh(refresh)
        XCTAssertEqual(refreshed.json?["error"]?.stringValue, "invalid_grant")
    }

    /// Codes expire by the injected clock (60 s by default).
    func testCodesExpire() async throws {
        let request = OpenIDFlow.Request()
        let code = try await flow.code(request)
        clock.advance(by: 61)
        let late = try await flow.exchange(code, request)
        XCTAssertEqual(late.json?["error"]?.stringValue, "invalid_grant")
    }

    /// Loopback redirect URIs match on any port, for 127.0.0.1 and [::1] (RFC 8252 §7.3), but the
    /// path must match and localhost is not loopback; an unknown client or redirect URI gets a
    /// 400 page, never a redirect.
    func testRedirectURIRules() async throws {
        for uri in ["http://127.0.0.1:1/callback", "http://127.0.0.1:65535/callback", "http://[::1]:4444/callback", "http://127.0.0.1/callback"] {
            var request = OpenIDFlow.Request()
            request.redirectURI = uri
            let reply = try await flow.authorize(request)
            XCTAssertEqual(reply.status, 302, uri)
            XCTAssertTrue(reply.headers["location"]?.hasPrefix(uri + "?code=") == true, reply.headers["location"] ?? "")
        }
        let refused = [
            "http://localhost:4444/callback", "http://127.0.0.1:4444/other", "https://127.0.0.1:4444/callback",
            "http://127.0.0.1:4444/callback?x=1", "http://127.0.0.1:4444/callback#f", "http://127.0.0.2:4444/callback",
        ]
        for uri in refused {
            var request = OpenIDFlow.Request()
            request.redirectURI = uri
            let reply = try await flow.authorize(request)
            XCTAssertEqual(reply.status, 400, uri)
            XCTAssertNil(reply.headers["location"], uri)
            XCTAssertEqual(reply.headers["content-type"], "text/html; charset=utf-8")
        }
        var unknown = OpenIDFlow.Request()
        unknown.clientID = "nobody"
        let page = try await flow.authorize(unknown)
        XCTAssertEqual(page.status, 400)
        XCTAssertTrue(page.text.contains("The client is unknown."), page.text)
    }

    /// Other errors go back to the client, with the state and the issuer: no PKCE, the plain
    /// method, an unknown scope, another response type, a repeated parameter.
    func testRequestErrorsAreRedirected() async throws {
        func error(_ change: (inout OpenIDFlow.Request) -> Void, extra: [(String, String)] = []) async throws -> [String: String] {
            var request = OpenIDFlow.Request()
            change(&request)
            let reply = try await flow.authorize(request, extra: extra)
            XCTAssertEqual(reply.status, 302)
            XCTAssertEqual(reply.redirectParameters["state"], request.state)
            XCTAssertEqual(reply.redirectParameters["iss"], backend.issuer.absoluteString)
            XCTAssertNil(reply.redirectParameters["code"])
            return reply.redirectParameters
        }
        let plain = try await error { $0.challengeMethod = "plain" }
        XCTAssertEqual(plain["error"], "invalid_request")
        let scope = try await error { $0.scope = "openid admin" }
        XCTAssertEqual(scope["error"], "invalid_scope")
        let repeated = try await error({ _ in }, extra: [("state", "again")])
        XCTAssertEqual(repeated["error"], "invalid_request")

        let noChallenge = try await client.send(.GET, "/oidc/authorize?" + URLForm.encode([
            ("response_type", "code"), ("client_id", "coffer-native"), ("redirect_uri", "http://127.0.0.1:9/callback"), ("state", "s"),
        ]), backendID: nil)
        XCTAssertEqual(noChallenge.redirectParameters["error"], "invalid_request")
        XCTAssertEqual(noChallenge.redirectParameters["error_description"], "code_challenge is required (PKCE)")
        let token = try await client.send(.GET, "/oidc/authorize?" + URLForm.encode([
            ("response_type", "token"), ("client_id", "coffer-native"), ("redirect_uri", "http://127.0.0.1:9/callback"),
        ]), backendID: nil)
        XCTAssertEqual(token.redirectParameters["error"], "unsupported_response_type")
        XCTAssertNil(token.redirectParameters["state"], "no state was sent")
    }

    /// A confidential client authenticates with HTTP Basic or client_secret_post; a public client
    /// without client_id, or a confidential one without its secret, gets 401 invalid_client.
    func testClientAuthentication() async throws {
        var request = OpenIDFlow.Request()
        request.clientID = OpenIDFlow.confidential.id
        let secret = try XCTUnwrap(OpenIDFlow.confidential.secret)
        func form(_ code: String) -> [(String, String)] {
            [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", request.redirectURI), ("code_verifier", request.pkce.verifier)]
        }
        let basic = try await flow.tokenRequest(form(try await flow.code(request)), clientID: request.clientID, secret: secret)
        XCTAssertEqual(basic.status, 200)
        let post = try await client.send(.POST, OpenIDFlow.token, backendID: nil, form: URLForm.encode(
            form(try await flow.code(request)) + [("client_id", request.clientID), ("client_secret", secret)]))
        XCTAssertEqual(post.status, 200)
        let noSecret = try await flow.tokenRequest(form(try await flow.code(request)), clientID: request.clientID)
        XCTAssertEqual(noSecret.status, 401)
        XCTAssertEqual(noSecret.json?["error"]?.stringValue, "invalid_client")
        let wrongSecret = try await flow.tokenRequest(form(try await flow.code(request)), clientID: request.clientID, secret: "wrong")
        XCTAssertEqual(wrongSecret.status, 401)
        let anonymous = try await client.send(.POST, OpenIDFlow.token, backendID: nil, form: URLForm.encode(form("x")))
        XCTAssertEqual(anonymous.status, 401)
        let oauthGrant = try await flow.tokenRequest([("grant_type", "password"), ("username", "demo"), ("password", "demo-password")])
        XCTAssertEqual(oauthGrant.json?["error"]?.stringValue, "unsupported_grant_type", "OpenID clients have no password grant")
    }
}
