import CofferTestSupport
@testable import CofferDevBackend
import Crypto
import Foundation
import JWTKit
import XCTest

/// An OpenID client written out by hand over ``RawClient``: PKCE, the authorization request,
/// the code exchange, refresh, the device flow, and ID-token verification with jwt-kit.
struct OpenIDFlow {
    let client: RawClient
    var backend: DevBackend { client.backend }

    static let native = OpenIDClientRegistration.native
    static let confidential = OpenIDClientRegistration.confidential
    static let token = "/oauth2/v1/token"

    /// A PKCE verifier and its S256 challenge, computed here (RFC 7636 §4.1–4.2).
    struct PKCEPair {
        let verifier = OpenIDFlow.random(bytes: 32)
        var challenge: String { IndependentJWS.encode(Data(SHA256.hash(data: Data(verifier.utf8))), .unpaddedURL) }
    }

    /// `count` random bytes, unpadded base64url: verifiers, states and nonces.
    static func random(bytes count: Int) -> String {
        IndependentJWS.encode(Data((0..<count).map { _ in UInt8.random(in: .min ... .max) }), .unpaddedURL)
    }

    /// One authorization request's values.
    struct Request {
        var clientID = OpenIDFlow.native.id
        var redirectURI = "http://127.0.0.1:53682/callback"
        var scope = "openid profile email offline_access"
        var state = OpenIDFlow.random(bytes: 12)
        var nonce: String? = OpenIDFlow.random(bytes: 12)
        var pkce = PKCEPair()
        var challengeMethod = "S256"

        var pairs: [(String, String)] {
            var pairs = [
                ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope), ("state", state),
                ("code_challenge", pkce.challenge), ("code_challenge_method", challengeMethod),
            ]
            if let nonce { pairs.append(("nonce", nonce)) }
            return pairs
        }
    }

    /// `GET /oidc/authorize?…`.
    func authorize(_ request: Request, extra: [(String, String)] = []) async throws -> RawClient.Reply {
        try await client.send(.GET, "/oidc/authorize?" + URLForm.encode(request.pairs + extra), backendID: nil)
    }

    /// The code of a successful redirect.
    func code(_ request: Request) async throws -> String {
        let reply = try await authorize(request)
        XCTAssertEqual(reply.status, 302, reply.text)
        return try XCTUnwrap(reply.redirectParameters["code"], "no code in \(reply.headers["location"] ?? "")")
    }

    /// `POST /oauth2/v1/token` with `form`, as the public client (`client_id` in the form) or
    /// a confidential one (HTTP Basic).
    func tokenRequest(_ form: [(String, String)], clientID: String = OpenIDFlow.native.id, secret: String? = nil) async throws -> RawClient.Reply {
        if let secret {
            let basic = RawClient.basic(clientID, secret)
            return try await client.send(.POST, Self.token, authorization: basic, backendID: nil, form: URLForm.encode(form))
        }
        return try await client.send(.POST, Self.token, backendID: nil, form: URLForm.encode(form + [("client_id", clientID)]))
    }

    /// The authorization code grant.
    func exchange(_ code: String, _ request: Request, verifier: String? = nil, redirectURI: String? = nil) async throws -> RawClient.Reply {
        try await tokenRequest([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI ?? request.redirectURI),
            ("code_verifier", verifier ?? request.pkce.verifier),
        ], clientID: request.clientID)
    }

    /// A whole browser login with auto-approval: the token reply.
    func login(_ request: Request = Request()) async throws -> RawClient.Reply {
        let reply = try await exchange(try await code(request), request)
        XCTAssertEqual(reply.status, 200, "\(String(describing: reply.json))")
        return reply
    }

    /// The refresh grant.
    func refresh(_ token: String, clientID: String = OpenIDFlow.native.id, scope: String? = nil) async throws -> RawClient.Reply {
        var form = [("grant_type", "refresh_token"), ("refresh_token", token)]
        if let scope { form.append(("scope", scope)) }
        return try await tokenRequest(form, clientID: clientID)
    }

    /// `POST /oidc/device`.
    func startDevice(clientID: String = OpenIDFlow.native.id, scope: String = "openid profile") async throws -> RawClient.Reply {
        try await client.send(.POST, "/oidc/device", backendID: nil, form: URLForm.encode([("client_id", clientID), ("scope", scope)]))
    }

    /// One device-code poll.
    func poll(_ deviceCode: String, clientID: String = OpenIDFlow.native.id) async throws -> RawClient.Reply {
        try await tokenRequest([("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode)], clientID: clientID)
    }

    /// `GET /oidc/userinfo` with `token`.
    func userinfo(_ token: String) async throws -> RawClient.Reply {
        try await client.send(.GET, "/oidc/userinfo", authorization: "Bearer \(token)", backendID: nil)
    }

    /// The JWKS, as jwt-kit reads it.
    func keys() async throws -> JWTKeyCollection {
        let jwks = try await client.send(.GET, "/oidc/jwks", backendID: nil)
        return try await JWTKeyCollection().add(jwksJSON: jwks.text)
    }

    /// `idToken` verified by jwt-kit against the JWKS.
    func verify(_ idToken: String) async throws -> TestIDClaims {
        try await keys().verify(idToken, as: TestIDClaims.self)
    }

    /// The header of `idToken`, unverified.
    static func header(_ idToken: String) throws -> JWTHeader {
        try DefaultJWTParser().parse(Array(idToken.utf8), as: TestIDClaims.self).header
    }

    /// The payload of `idToken`, unverified.
    static func claims(_ idToken: String) throws -> TestIDClaims {
        try DefaultJWTParser().parse(Array(idToken.utf8), as: TestIDClaims.self).payload
    }
}

/// What the tests read from an ID token.
struct TestIDClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var auth_time: Date?
    var nonce: String?
    var at_hash: String?
    var preferred_username: String?
    var name: String?
    var email: String?

    func verify(using _: some JWTAlgorithm) async throws {}
}
