@testable import CofferDevBackend
import XCTest

final class RefreshTokenTests: OpenIDTestCase {
    /// Each refresh returns a new refresh token and access token, and a new ID token for the
    /// same user without a nonce; the old refresh token stops working.
    func testRefreshRotates() async throws {
        let login = try await flow.login()
        let first = try XCTUnwrap(login.json?["refresh_token"]?.stringValue)
        let firstClaims = try await flow.verify(try XCTUnwrap(login.json?["id_token"]?.stringValue))
        clock.advance(by: 10)
        let refreshed = try await flow.refresh(first)
        XCTAssertEqual(refreshed.status, 200, "\(String(describing: refreshed.json))")
        let second = try XCTUnwrap(refreshed.json?["refresh_token"]?.stringValue)
        XCTAssertNotEqual(second, first)
        XCTAssertNotEqual(refreshed.json?["access_token"], login.json?["access_token"])
        XCTAssertEqual(refreshed.json?["scope"]?.stringValue, "openid profile email offline_access")
        let claims = try await flow.verify(try XCTUnwrap(refreshed.json?["id_token"]?.stringValue))
        XCTAssertEqual(claims.sub.value, firstClaims.sub.value)
        XCTAssertNil(claims.nonce)
        XCTAssertEqual(claims.auth_time, firstClaims.auth_time, "auth_time is the login's")
        XCTAssertEqual(claims.iat.value, firstClaims.iat.value.addingTimeInterval(10))

        let third = try await flow.refresh(second)
        XCTAssertEqual(third.status, 200)
        XCTAssertEqual(backend.statistics.refreshRequests, 2)
    }

    /// Presenting a rotated-away refresh token is invalid_grant and revokes the family: the
    /// newest refresh token and every access token of the login stop working.
    func testReuseRevokesTheFamily() async throws {
        let login = try await flow.login()
        let first = try XCTUnwrap(login.json?["refresh_token"]?.stringValue)
        let refreshed = try await flow.refresh(first)
        let second = try XCTUnwrap(refreshed.json?["refresh_token"]?.stringValue)
        let access = try XCTUnwrap(refreshed.json?["access_token"]?.stringValue)
        let other = try await flow.login()

        let reuse = try await flow.refresh(first)
        XCTAssertEqual(reuse.status, 400)
        XCTAssertEqual(reuse.json?["error"]?.stringValue, "invalid_grant")
        let next = try await flow.refresh(second)
        XCTAssertEqual(next.json?["error"]?.stringValue, "invalid_grant", "the family is revoked")
        for token in [access, login.json?["access_token"]?.stringValue ?? ""] {
            let userinfo = try await flow.userinfo(token)
            XCTAssertEqual(userinfo.status, 401)
        }
        XCTAssertEqual(backend.statistics.refreshReuses, 1)
        let unaffected = try await flow.refresh(try XCTUnwrap(other.json?["refresh_token"]?.stringValue))
        XCTAssertEqual(unaffected.status, 200, "another login is not touched")
    }

    /// A refresh token works only for its client, until its lifetime passes; scope can narrow, not widen.
    func testClientLifetimeAndScope() async throws {
        let login = try await flow.login()
        let token = try XCTUnwrap(login.json?["refresh_token"]?.stringValue)
        let otherClient = try await flow.tokenRequest(
            [("grant_type", "refresh_token"), ("refresh_token", token)],
            clientID: OpenIDFlow.confidential.id, secret: OpenIDFlow.confidential.secret)
        XCTAssertEqual(otherClient.json?["error"]?.stringValue, "invalid_grant")
        let wider = try await flow.refresh(token, scope: "openid admin")
        XCTAssertEqual(wider.json?["error"]?.stringValue, "invalid_scope")
        let narrower = try await flow.refresh(token, scope: "profile")
        XCTAssertEqual(narrower.status, 200)
        XCTAssertEqual(narrower.json?["scope"]?.stringValue, "profile")
        XCTAssertNil(narrower.json?["id_token"], "no openid, no ID token")

        clock.advance(by: 30 * 86400 + 1)
        let expired = try await flow.refresh(try XCTUnwrap(narrower.json?["refresh_token"]?.stringValue))
        XCTAssertEqual(expired.json?["error"]?.stringValue, "invalid_grant")
    }

    /// The password grant now returns a refresh token; refreshing it rotates it, with reuse detection.
    func testPasswordGrantRefreshTokens() async throws {
        let login = try await client.send(
            .POST, OpenIDFlow.token, authorization: RawClient.clientAuthorization, form: "grant_type=password&username=demo&password=demo-password")
        let first = try XCTUnwrap(login.json?["refresh_token"]?.stringValue)
        let refreshed = try await client.send(
            .POST, OpenIDFlow.token, authorization: RawClient.clientAuthorization,
            form: URLForm.encode([("grant_type", "refresh_token"), ("refresh_token", first)]))
        XCTAssertEqual(refreshed.status, 200)
        XCTAssertEqual(refreshed.json?["token_type"]?.stringValue, "Bearer")
        XCTAssertEqual(refreshed.json?["expires_in"]?.intValue, 300)
        XCTAssertNil(refreshed.json?["id_token"])
        let access = try XCTUnwrap(refreshed.json?["access_token"]?.stringValue)
        let second = try XCTUnwrap(refreshed.json?["refresh_token"]?.stringValue)
        let protected = try await client.send(.GET, "/protected", authorization: "Bearer \(access)")
        XCTAssertEqual(protected.json?["authenticatedBy"]?.stringValue, "oauth")
        XCTAssertEqual(protected.json?["user"]?.stringValue, "demo")

        let publicClient = try await flow.refresh(second)
        XCTAssertEqual(publicClient.json?["error"]?.stringValue, "invalid_grant", "another client's refresh token")
        let reuse = try await client.send(
            .POST, OpenIDFlow.token, authorization: RawClient.clientAuthorization,
            form: URLForm.encode([("grant_type", "refresh_token"), ("refresh_token", first)]))
        XCTAssertEqual(reuse.json?["error"]?.stringValue, "invalid_grant")
        let afterReuse = try await client.send(.GET, "/protected", authorization: "Bearer \(access)")
        XCTAssertEqual(afterReuse.status, 401, "the family is revoked")
        let clientCredentials = try await client.send(
            .POST, OpenIDFlow.token, authorization: RawClient.clientAuthorization, form: "grant_type=client_credentials")
        XCTAssertNil(clientCredentials.json?["refresh_token"], "no refresh token for the client-credentials grant")
    }

    /// RFC 7009: a refresh token, hinted or not, revokes its whole family; an access token only itself.
    func testRevocationOfRefreshTokens() async throws {
        for hint in ["refresh_token", "access_token", nil] {
            let login = try await flow.login()
            let refresh = try XCTUnwrap(login.json?["refresh_token"]?.stringValue)
            let access = try XCTUnwrap(login.json?["access_token"]?.stringValue)
            var form = [("token", refresh), ("client_id", OpenIDFlow.native.id)]
            if let hint { form.append(("token_type_hint", hint)) }
            let revoked = try await client.send(.POST, "/oauth2/v1/revoke", backendID: nil, form: URLForm.encode(form))
            XCTAssertEqual(revoked.status, 200)
            let refreshed = try await flow.refresh(refresh)
            XCTAssertEqual(refreshed.json?["error"]?.stringValue, "invalid_grant", hint ?? "no hint")
            let userinfo = try await flow.userinfo(access)
            XCTAssertEqual(userinfo.status, 401, hint ?? "no hint")
        }
        let login = try await flow.login()
        let access = try XCTUnwrap(login.json?["access_token"]?.stringValue)
        let revoked = try await client.send(
            .POST, "/oauth2/v1/revoke", backendID: nil, form: URLForm.encode([("token", access), ("client_id", OpenIDFlow.native.id)]))
        XCTAssertEqual(revoked.status, 200)
        let userinfo = try await flow.userinfo(access)
        XCTAssertEqual(userinfo.status, 401)
        let refreshed = try await flow.refresh(try XCTUnwrap(login.json?["refresh_token"]?.stringValue))
        XCTAssertEqual(refreshed.status, 200, "revoking an access token leaves the refresh token")

        let otherClient = try await flow.login()
        let notYours = try await client.send(
            .POST, "/oauth2/v1/revoke", authorization: RawClient.clientAuthorization,
            form: URLForm.encode([("token", otherClient.json?["refresh_token"]?.stringValue ?? "")]))
        XCTAssertEqual(notYours.status, 200, "RFC 7009 §2.2")
        let stillGood = try await flow.refresh(try XCTUnwrap(otherClient.json?["refresh_token"]?.stringValue))
        XCTAssertEqual(stillGood.status, 200, "another client cannot revoke it")
        let unauthenticated = try await client.send(.POST, "/oauth2/v1/revoke", backendID: nil, form: "token=x")
        XCTAssertEqual(unauthenticated.status, 401)
    }
}
