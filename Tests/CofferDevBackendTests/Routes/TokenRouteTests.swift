import CofferTestSupport
@testable import CofferDevBackend
import XCTest

final class TokenRouteTests: XCTestCase {
    var backend: DevBackend!
    var client: RawClient { RawClient(backend: backend) }
    let token = "/oauth2/v1/token"

    override func setUp() async throws {
        backend = try await DevBackend.start(DevBackend.Configuration(tokenLifetime: 120, logger: quietLogger))
    }

    override func tearDown() async throws {
        await backend.stop()
    }

    /// The password grant answers RFC 6749 §5.1: a Bearer token, `expires_in` from the configured lifetime, no-store.
    func testPasswordGrantIssuesABearerToken() async throws {
        let reply = try await client.send(.POST, token, authorization: RawClient.clientAuthorization,
                                          form: "grant_type=password&username=demo&password=demo-password")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.json?["token_type"]?.stringValue, "Bearer")
        XCTAssertEqual(reply.json?["expires_in"]?.intValue, 120)
        XCTAssertNotNil(reply.json?["access_token"]?.stringValue)
        XCTAssertEqual(reply.headers["cache-control"], "no-store")
        XCTAssertEqual(reply.headers["content-type"], "application/json")
    }

    /// Wrong passwords, missing client auth, unknown grants and bad bodies get the RFC 6749 §5.2 error codes.
    func testErrorRepliesFollowRFC6749() async throws {
        let cases: [(authorization: String?, form: String, contentType: String, status: Int, error: String)] = [
            (RawClient.clientAuthorization, "grant_type=password&username=demo&password=wrong", "application/x-www-form-urlencoded", 400, "invalid_grant"),
            (nil, "grant_type=password&username=demo&password=demo-password", "application/x-www-form-urlencoded", 401, "invalid_client"),
            ("Basic " + Data("coffer-cli:wrong".utf8).base64EncodedString(), "grant_type=client_credentials", "application/x-www-form-urlencoded", 401, "invalid_client"),
            (RawClient.clientAuthorization, "grant_type=authorization_code&code=x", "application/x-www-form-urlencoded", 400, "unsupported_grant_type"),
            (RawClient.clientAuthorization, "username=demo", "application/x-www-form-urlencoded", 400, "invalid_request"),
            (RawClient.clientAuthorization, "grant_type=password&grant_type=password", "application/x-www-form-urlencoded", 400, "invalid_request"),
            (RawClient.clientAuthorization, #"{"grant_type":"password"}"#, "application/json", 400, "invalid_request"),
        ]
        for item in cases {
            let reply = try await client.send(.POST, token, authorization: item.authorization, form: item.form, contentType: item.contentType)
            XCTAssertEqual(reply.status, item.status, item.form)
            XCTAssertEqual(reply.json?["error"]?.stringValue, item.error, item.form)
        }
        let unauthorized = try await client.send(.POST, token, form: "grant_type=client_credentials")
        XCTAssertEqual(unauthorized.headers["www-authenticate"], #"Basic realm="coffer-dev""#)
    }

    /// The client-credentials grant issues a token that opens /anonymous but not /protected.
    func testClientCredentialsGrantIsAnonymous() async throws {
        let reply = try await client.send(.POST, token, authorization: RawClient.clientAuthorization, form: "grant_type=client_credentials")
        let value = try XCTUnwrap(reply.json?["access_token"]?.stringValue)
        let anonymous = try await client.send(.GET, "/anonymous", authorization: "Bearer \(value)")
        XCTAssertEqual(anonymous.json?["client"]?.stringValue, "coffer-cli")
        let protected = try await client.send(.GET, "/protected", authorization: "Bearer \(value)")
        XCTAssertEqual(protected.status, 401)
    }

    /// The RFC 8693 grant exchanges an accepted third-party token and says which token type it issued.
    func testTokenExchangeGrant() async throws {
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=demo-third-party-token"
            + "&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token"
        let reply = try await client.send(.POST, token, authorization: RawClient.clientAuthorization, form: form)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.json?["issued_token_type"]?.stringValue, "urn:ietf:params:oauth:token-type:access_token")
        XCTAssertEqual(reply.json?["expires_in"]?.intValue, 6 * 3600)
        let unknown = try await client.send(.POST, token, authorization: RawClient.clientAuthorization,
                                            form: form.replacingOccurrences(of: "demo-third-party-token", with: "nope"))
        XCTAssertEqual(unknown.json?["error"]?.stringValue, "invalid_grant")
    }

    /// Every token request is counted, which is what the single-flight tests rely on.
    func testTokenRequestsAreCounted() async throws {
        _ = try await client.passwordToken()
        _ = try await client.passwordToken(password: "wrong")
        XCTAssertEqual(backend.statistics.tokenRequests, 2)
    }
}
