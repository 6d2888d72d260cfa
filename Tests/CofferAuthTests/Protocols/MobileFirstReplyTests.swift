@testable import CofferAuth
import CofferTestSupport
import Foundation
import XCTest

/// How Coffer's MobileFirst client answers the replies of a real runtime besides the happy path
/// (docs/protocol.md 8.5): `INVALID_CLIENT_ID`, `MFP-Conflict`, `insufficient_scope` and error
/// bodies, from a scripted server on 127.0.0.1.
final class MobileFirstReplyTests: ChallengeTestCase {
    static func registered(_ id: String) -> @Sendable (TranscriptServer.Recorded, URL) -> Transcript.Reply {
        Transcript.json(201, "{}", [("Location", "{base}/mfp/api/registration/clients/\(id)")])
    }

    static let granted = Transcript.json(200, #"{"successes":{}}"#)
    static func redirect(_ id: String) -> @Sendable (TranscriptServer.Recorded, URL) -> Transcript.Reply {
        Transcript.reply(302, [("Location", "{base}/mfp/api/az/v1/authorization/redirect/\(id)?code=C1")])
    }
    static let token = Transcript.json(200, #"{"access_token":"tok","token_type":"Bearer","expires_in":3600,"scope":"RegisteredClient"}"#)
    static let unknownClient = Transcript.json(400, #"{"errorCode":"INVALID_CLIENT_ID","errorMsg":"the client is not registered"}"#)

    private func start(_ replies: [@Sendable (TranscriptServer.Recorded, URL) -> Transcript.Reply]) async throws -> (TranscriptServer, ChallengeClient) {
        let server = try await TranscriptServer.start(replies)
        return (server, fixture.challengeClient(.mobileFirst(server.baseURL)))
    }

    /// 400 `INVALID_CLIENT_ID` drops the registration, registers once more (a new key) and retries.
    func testInvalidClientIDRegistersAgainOnceAndRetries() async throws {
        let (server, client) = try await start([
            Self.registered("old-client"), Self.unknownClient, Self.registered("new-client"), Self.granted, Self.redirect("new-client"), Self.token,
        ])
        defer { Task { await server.stop() } }
        let token = try await client.authorizationManager.obtainAccessToken()
        XCTAssertEqual(token.value, "tok")
        let requests = server.requests
        XCTAssertEqual(requests.map(\.path), [
            "/mfp/api/registration/v1/self", "/mfp/api/preauth/v1/preauthorize", "/mfp/api/registration/v1/self",
            "/mfp/api/preauth/v1/preauthorize", "/mfp/api/az/v1/authorization", "/mfp/api/az/v1/token",
        ])
        XCTAssertEqual(JSONValue(parsing: requests[3].body)?["client_id"]?.stringValue, "new-client")
        XCTAssertNotEqual(requests[0].body, requests[2].body, "a new key, newly signed")
        XCTAssertEqual(try fixture.storedChallengeSession(of: client)?.registration?.clientID, "new-client")
    }

    /// A second `INVALID_CLIENT_ID` right after registering again ends the request: one re-registration only.
    func testInvalidClientIDAfterReRegisteringIsAnError() async throws {
        let (server, client) = try await start([Self.registered("a"), Self.unknownClient, Self.registered("b"), Self.unknownClient])
        defer { Task { await server.stop() } }
        await XCTAssertThrowsAuthError(matching: { _ in true }) { try await client.authorizationManager.obtainAccessToken() }
        XCTAssertEqual(server.requests.filter { $0.path.hasSuffix("/registration/v1/self") }.count, 2)
        XCTAssertEqual(server.requests.count, 4, "nothing after the second refusal")
    }

    /// 409 with `MFP-Conflict` is sent again, unchanged.
    func testConflictIsSentAgainUnchanged() async throws {
        let conflict = Transcript.reply(409, [("MFP-Conflict", "true")])
        let (server, client) = try await start([conflict, conflict, Self.registered("c"), Self.granted, Self.redirect("c"), Self.token])
        defer { Task { await server.stop() } }
        _ = try await client.authorizationManager.obtainAccessToken()
        let registrations = server.requests.filter { $0.path.hasSuffix("/registration/v1/self") }
        XCTAssertEqual(registrations.count, 3)
        XCTAssertEqual(Set(registrations.map(\.body)).count, 1, "the same request each time")
    }

    /// A 409 without `MFP-Conflict` is not retried.
    func testConflictWithoutTheHeaderIsNotRetried() async throws {
        let (server, client) = try await start([Transcript.reply(409)])
        defer { Task { await server.stop() } }
        await XCTAssertThrowsAuthError(.serverError(status: 409)) { try await client.authorizationManager.obtainAccessToken() }
        XCTAssertEqual(server.requests.count, 1)
    }

    /// A resource's 403 `insufficient_scope, scope="…"` asks for a token of that scope (without
    /// `RegisteredClient`), and the request is sent again with it.
    func testInsufficientScopeGetsATokenForTheNamedScope() async throws {
        let (server, client) = try await start([
            Transcript.reply(403, [("WWW-Authenticate", #"Bearer error="insufficient_scope", scope="RegisteredClient accessRestricted""#)]),
            Self.registered("s"), Self.granted, Self.redirect("s"), Self.token, Transcript.json(200, "{}"),
        ])
        defer { Task { await server.stop() } }
        let reply = try await ResourceRequest(url: server.baseURL.appendingPathComponent("api/restricted")).send(using: client)
        XCTAssertEqual(reply.status, 200)
        let requests = server.requests
        XCTAssertEqual(JSONValue(parsing: requests[2].body)?["scope"]?.stringValue, "accessRestricted")
        XCTAssertEqual(requests[3].query["scope"], "accessRestricted")
        XCTAssertEqual(requests[5].header("Authorization"), "Bearer tok")
    }

    /// An error body (`errorCode`, `errorMsg`) becomes ``AuthError/refused(_:)`` with the server's text.
    func testErrorBodyIsRefusedWithTheServersText() async throws {
        let (server, client) = try await start([
            Self.registered("e"), Transcript.json(403, #"{"errorCode":"APPLICATION_DISABLED","errorMsg":"The application\nis disabled"}"#),
        ])
        defer { Task { await server.stop() } }
        await XCTAssertThrowsAuthError(.refused(ServerRefusal(status: 403, code: "APPLICATION_DISABLED", message: "The application is disabled"))) {
            try await client.authorizationManager.obtainAccessToken()
        }
    }

    /// A registration reply without a usable `Location` is malformed, and nothing is stored.
    func testRegistrationWithoutLocationIsMalformed() async throws {
        let (server, client) = try await start([Transcript.json(201, "{}")])
        defer { Task { await server.stop() } }
        await XCTAssertThrowsAuthError(.malformedResponse(reason: "the registration reply has no usable Location")) {
            try await client.authorizationManager.obtainAccessToken()
        }
        XCTAssertNil(try fixture.storedChallengeSession(of: client)?.registration)
    }
}
