import CofferTestSupport
@testable import CofferDevBackend
import CryptoExtras
import Foundation
import NIOHTTP1
import XCTest

/// JSON text of `value`.
func jsonText(_ value: JSON) -> String {
    String(decoding: value.text, as: UTF8.self)
}

/// A MobileFirst client as a test plays it, with its own key, signing with ``IndependentJWS``:
/// what a vendor SDK would send, made apart from CofferAuth's code.
struct TestMobileFirstClient {
    static let runtime = "/mfp/api/"
    static let applicationID = "tests"

    let raw: RawClient
    let key: _RSA.Signing.PrivateKey
    var id: String = ""

    /// A new key (2048 bits).
    init(raw: RawClient, key: _RSA.Signing.PrivateKey? = nil) throws {
        self.raw = raw
        self.key = try key ?? _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// The JWS header with this client's key as a JWK (`n` with Java's leading zero, as the Android SDK writes it).
    func header(kid: String? = nil, key: _RSA.Signing.PrivateKey? = nil) throws -> String {
        let (n, e) = try IndependentJWS.numbers(of: (key ?? self.key).publicKey)
        var jwk: [String: JSON] = [
            "kty": "RSA", "n": .string(IndependentJWS.encode(IndependentJWS.javaSigned(n), .paddedURL)),
            "e": .string(IndependentJWS.encode(e, .paddedURL)),
        ]
        if let kid { jwk["kid"] = .string(kid) }
        return jsonText(["alg": "RS256", "jwk": .object(jwk)])
    }

    /// The registration data (web SDK form).
    static func registrationData(hardware: String = "x86_64") -> JSON {
        ["device": ["id": "device-1", "platform": "Linux", "hardware": .string(hardware)], "application": ["clientPlatform": "web", "id": .string(applicationID)]]
    }

    /// The registration body: the JWS split into its segments.
    func registrationBody(_ data: JSON = registrationData(), encoding: IndependentJWS.Encoding = .paddedURL) throws -> JSON {
        let jws = try IndependentJWS.sign(header: try header(), payload: jsonText(data), with: key, encoding: encoding)
        let parts = jws.split(separator: ".").map { JSON.string(String($0)) }
        return ["signedRegistrationData": ["header": parts[0], "payload": parts[1], "signature": parts[2]]]
    }

    /// Registers; returns the client with its id (from `Location`).
    func registered(encoding: IndependentJWS.Encoding = .paddedURL, file: StaticString = #filePath, line: UInt = #line) async throws -> TestMobileFirstClient {
        let reply = try await raw.post(Self.runtime + "registration/v1/self", json: try registrationBody(encoding: encoding))
        XCTAssertEqual(reply.status, 201, reply.text, file: file, line: line)
        let location = try XCTUnwrap(reply.headers["location"], file: file, line: line)
        XCTAssertTrue(location.hasPrefix("/mfp/api/registration/clients/"), location, file: file, line: line)
        var client = self
        client.id = String(location.split(separator: "/").last ?? "")
        return client
    }

    /// A client assertion dated `now` (milliseconds), lasting `lifetime` seconds.
    func assertion(
        at now: Date, jti: String? = nil, aud: String? = nil, lifetime: TimeInterval = 60, signedBy other: _RSA.Signing.PrivateKey? = nil,
        subject: String? = nil
    ) throws -> String {
        let iat = (now.timeIntervalSince1970 * 1000).rounded(.down)
        var claims: [String: JSON] = [
            "iss": .string("\(Self.applicationID)$web"), "sub": .string(subject ?? id), "iat": .number(iat), "exp": .number(iat + lifetime * 1000),
        ]
        if let jti { claims["jti"] = .string(jti) }
        if let aud { claims["aud"] = .string(aud) }
        return try IndependentJWS.sign(header: try header(kid: subject ?? id), payload: jsonText(.object(claims)), with: other ?? key)
    }

    /// The form fields of an assertion.
    static func assertionForm(_ assertion: String) -> String {
        URLForm.encode([("client_assertion", assertion), ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")])
    }

    /// `POST preauth/v1/preauthorize`.
    func preauthorize(_ scope: String, _ answers: [String: JSON]? = nil) async throws -> RawClient.Reply {
        var body: [String: JSON] = ["client_id": .string(id), "scope": .string(scope)]
        if let answers { body["challengeResponse"] = .object(answers) }
        return try await raw.post(Self.runtime + "preauth/v1/preauthorize", json: .object(body))
    }

    /// `GET az/v1/authorization` for `scope`: the code of the redirect, or `nil`.
    func code(scope: String, redirectURI: String = "https://app/cb") async throws -> (reply: RawClient.Reply, code: String?) {
        let query = URLForm.encode([("response_type", "code"), ("client_id", id), ("scope", scope), ("redirect_uri", redirectURI)])
        let reply = try await raw.send(.GET, Self.runtime + "az/v1/authorization?" + query, backendID: nil)
        return (reply, reply.redirectParameters["code"])
    }

    /// `POST az/v1/token` with `code` and `assertion`.
    func token(code: String, assertion: String, redirectURI: String = "https://app/cb") async throws -> RawClient.Reply {
        let form = URLForm.encode([("code", code), ("grant_type", "authorization_code"), ("redirect_uri", redirectURI)])
            + "&" + Self.assertionForm(assertion)
        return try await raw.send(.POST, Self.runtime + "az/v1/token", backendID: nil, form: form)
    }

    /// `POST preauth/v1/logout` of `check` with `assertion`.
    func logout(_ check: String, assertion: String) async throws -> RawClient.Reply {
        try await raw.send(.POST, Self.runtime + "preauth/v1/logout", backendID: nil,
                           form: URLForm.encode([("security_check", check)]) + "&" + Self.assertionForm(assertion))
    }
}

/// A Mobile Client Access client as a test plays it, signing with ``IndependentJWS``.
struct TestClientAccessClient {
    static let apps = "/imf-authserver/authorization/v1/apps/coffer-tenant/"

    let raw: RawClient
    let key: _RSA.Signing.PrivateKey
    let session = UUID().uuidString
    var id: String = ""

    init(raw: RawClient) throws {
        self.raw = raw
        self.key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// The `jpk` header, as the Android SDK writes it (Java signed bytes, base64url with padding).
    func header(key: _RSA.Signing.PrivateKey? = nil) throws -> String {
        let (n, e) = try IndependentJWS.numbers(of: (key ?? self.key).publicKey)
        return jsonText(["alg": "RS256", "jpk": [
            "alg": "RSA", "mod": .string(IndependentJWS.encode(IndependentJWS.javaSigned(n), .paddedURL)),
            "exp": .string(IndependentJWS.encode(IndependentJWS.javaSigned(e), .paddedURL)),
        ]])
    }

    var sessionHeader: [(String, String)] { [("X-WL-Session", session)] }

    /// The CSR: the Android SDK's payload, signed.
    func csr(signedBy other: _RSA.Signing.PrivateKey? = nil) throws -> String {
        let payload: JSON = [
            "deviceId": "device-1", "deviceOs": "android", "deviceModel": "Pixel", "applicationId": "com.example",
            "applicationVersion": "1.0", "environment": "android",
        ]
        return try IndependentJWS.sign(header: try header(), payload: jsonText(payload), with: other ?? key)
    }

    /// Registers; returns the client with its id and the reply.
    func registered(file: StaticString = #filePath, line: UInt = #line) async throws -> (TestClientAccessClient, RawClient.Reply) {
        let reply = try await raw.send(.POST, Self.apps + "clients/instance", backendID: nil, form: URLForm.encode([("CSR", try csr())]), headers: sessionHeader)
        XCTAssertEqual(reply.status, 200, reply.text, file: file, line: line)
        var client = self
        client.id = try reply.string("clientId", file: file, line: line)
        return (client, reply)
    }

    /// `GET authorization`, answering with `answers` when given.
    func authorize(answers: JSON? = nil, session: String? = nil) async throws -> RawClient.Reply {
        let query = URLForm.encode([("response_type", "code"), ("client_id", id), ("redirect_uri", "http://localhost")])
        return try await raw.send(
            .GET, Self.apps + "authorization?" + query, authorization: answers.map { "Bearer " + jsonText($0) }, backendID: nil,
            headers: [("X-WL-Session", session ?? self.session)])
    }

    /// `POST token` with `code`, signed (`X-WL-Authenticate`) by this client's key unless told otherwise.
    func token(code: String, signedCode: String? = nil, session: String? = nil) async throws -> RawClient.Reply {
        let signed = try signedCode ?? IndependentJWS.sign(header: try header(), payload: jsonText(["code": .string(code)]), with: key)
        let form = URLForm.encode([("code", code), ("client_id", id), ("grant_type", "authorization_code"), ("redirect_uri", "http://localhost")])
        return try await raw.send(.POST, Self.apps + "token", backendID: nil, form: form,
                                  headers: [("X-WL-Session", session ?? self.session), ("X-WL-Authenticate", signed)])
    }
}
