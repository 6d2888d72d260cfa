import CofferTestSupport
@testable import CofferDevBackend
import XCTest

final class DiscoveryRoutesTests: OpenIDTestCase {
    /// Discovery names the issuer exactly (base URL + /oidc) and every endpoint; RFC 8414's
    /// documents are the same.
    func testDiscoveryNamesTheIssuerAndEndpoints() async throws {
        let reply = try await client.send(.GET, "/oidc/.well-known/openid-configuration", backendID: nil)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.headers["content-type"], "application/json")
        let document = try XCTUnwrap(reply.json)
        let base = backend.baseURL.absoluteString
        XCTAssertEqual(document["issuer"]?.stringValue, base + "/oidc")
        XCTAssertEqual(document["issuer"]?.stringValue, backend.issuer.absoluteString)
        let endpoints = [
            "authorization_endpoint": "/oidc/authorize", "token_endpoint": "/oauth2/v1/token", "device_authorization_endpoint": "/oidc/device",
            "revocation_endpoint": "/oauth2/v1/revoke", "jwks_uri": "/oidc/jwks", "userinfo_endpoint": "/oidc/userinfo",
        ]
        for (name, path) in endpoints { XCTAssertEqual(document[name]?.stringValue, base + path, name) }
        func strings(_ name: String) -> [String]? { document[name]?.arrayValue?.compactMap(\.stringValue) }
        XCTAssertEqual(strings("response_types_supported"), ["code"])
        XCTAssertEqual(strings("code_challenge_methods_supported"), ["S256"])
        XCTAssertEqual(strings("id_token_signing_alg_values_supported"), ["RS256"])
        XCTAssertEqual(Set(strings("token_endpoint_auth_methods_supported") ?? []), ["none", "client_secret_basic", "client_secret_post"])
        XCTAssertEqual(
            Set(strings("grant_types_supported") ?? []), ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"])
        XCTAssertEqual(strings("scopes_supported"), ["openid", "profile", "email", "offline_access"])
        XCTAssertEqual(document["authorization_response_iss_parameter_supported"]?.boolValue, true)

        for path in ["/.well-known/oauth-authorization-server/oidc", "/oidc/.well-known/oauth-authorization-server"] {
            let metadata = try await client.send(.GET, path, backendID: nil)
            XCTAssertEqual(metadata.json, document, path)
        }
        XCTAssertEqual(backend.statistics.metadataRequests, 3)
    }

    /// The JWKS holds one RS256 signing key with an RFC 7638 thumbprint as kid; it stays the same.
    func testJWKSHoldsOneRS256Key() async throws {
        let reply = try await client.send(.GET, "/oidc/jwks", backendID: nil)
        XCTAssertEqual(reply.status, 200)
        let keys = try XCTUnwrap(reply.json?["keys"]?.arrayValue)
        XCTAssertEqual(keys.count, 1)
        let key = try XCTUnwrap(keys.first)
        XCTAssertEqual(key["kty"]?.stringValue, "RSA")
        XCTAssertEqual(key["alg"]?.stringValue, "RS256")
        XCTAssertEqual(key["use"]?.stringValue, "sig")
        XCTAssertEqual(key["e"]?.stringValue, "AQAB")
        XCTAssertEqual(IndependentJWS.decode(key["n"]?.stringValue ?? "")?.count, 256, "2048-bit modulus")
        let thumbprint = #"{"e":"AQAB","kty":"RSA","n":"\#(key["n"]?.stringValue ?? "")"}"#
        XCTAssertEqual(key["kid"]?.stringValue, IndependentJWS.encode(SHA256Digest.of(thumbprint), .unpaddedURL))
        let again = try await client.send(.GET, "/oidc/jwks", backendID: nil)
        XCTAssertEqual(again.json, reply.json)
        _ = try await flow.keys()
    }

    /// Faults can be armed on the metadata endpoints like on any other.
    func testMetadataFaults() async throws {
        backend.faults.inject(.status(503), on: .openIDDiscovery)
        backend.faults.inject(.status(500), on: .jwks)
        let discovery = try await client.send(.GET, "/oidc/.well-known/openid-configuration", backendID: nil)
        XCTAssertEqual(discovery.status, 503)
        let jwks = try await client.send(.GET, "/oidc/jwks", backendID: nil)
        XCTAssertEqual(jwks.status, 500)
        let ok = try await client.send(.GET, "/oidc/jwks", backendID: nil)
        XCTAssertEqual(ok.status, 200)
    }
}
