@testable import CofferAuth
import CofferTestSupport
import Foundation
import XCTest

/// Coffer's Oracle Mobile Hub client (HTTP Basic) against the golden transcripts, played by a
/// real server on 127.0.0.1.
final class MobileHubTranscriptTests: AuthTestCase {
    static let backendID = "bc52e296-9d7e-4cd3-8137-55e0e5b14457"

    private func backend(_ server: TranscriptServer, applicationKey: String? = nil, deviceID: String? = nil) -> MobileBackend {
        MobileBackend(baseURL: server.baseURL, backendID: Self.backendID, authentication: .httpBasic, applicationKey: applicationKey, deviceID: deviceID)
    }

    /// users/login checks the credentials, users/~ names the user, the headers (backend id,
    /// application key, device id) go with every call, and logout ends the login at users/logout
    /// after clearing the local session.
    func testBasicLoginUserAndLogoutFollowTheTranscript() async throws {
        let transcript = try Transcript("mobilehub-basic")
        let server = try await TranscriptServer.start(transcript.replies())
        defer { Task { await server.stop() } }
        let auth = fixture.authorization(backend(server, applicationKey: "app-key-1", deviceID: "device-7"))

        try await auth.authenticate(userName: "john", password: "secret")
        let user = try await auth.currentUser()
        XCTAssertEqual(user, AuthenticatedUser(id: "john", name: "John Doe", preferredUsername: "john", email: "john@example.com"))
        let reply = try await auth.get(server.baseURL.appendingPathComponent("mobile/custom/myapi/items"))
        XCTAssertEqual(reply.status, 200)
        let report = try await auth.logout()
        XCTAssertTrue(report.loggedOutAtBackend)
        XCTAssertTrue(report.removedStoredSession)
        XCTAssertNil(try fixture.storedSession(), "the local session went first")

        transcript.check(server.requests)
    }

    /// The application key and device id are sent only when configured.
    func testUnconfiguredHeadersAreNotSent() async throws {
        let transcript = try Transcript("mobilehub-basic")
        let server = try await TranscriptServer.start(transcript.replies())
        defer { Task { await server.stop() } }
        let auth = fixture.authorization(backend(server))
        try await auth.authenticate(userName: "john", password: "secret")
        let request = try XCTUnwrap(server.requests.first)
        XCTAssertEqual(request.header("Oracle-Mobile-Backend-ID"), Self.backendID)
        XCTAssertNil(request.header("Oracle-Mobile-Application-Key"))
        XCTAssertNil(request.header("Oracle-Mobile-Device-Id"))
    }

    /// A refused login is invalidCredentials and stores nothing; another error body becomes
    /// ``AuthError/refused(_:)`` with the server's detail (one line), error code and ECID.
    func testErrorBodiesBecomeTypedErrors() async throws {
        let transcript = try Transcript("mobilehub-errors")
        let server = try await TranscriptServer.start(transcript.replies())
        defer { Task { await server.stop() } }
        let auth = fixture.authorization(backend(server))

        await XCTAssertThrowsAuthError(.invalidCredentials) { try await auth.authenticate(userName: "john", password: "wrong") }
        XCTAssertNil(try fixture.storedSession(), "a refused login stores nothing")
        try await auth.authenticate(userName: "john", password: "secret")
        await XCTAssertThrowsAuthError(
            .refused(ServerRefusal(status: 404, code: "MOBILE-58026", message: "The mobile backend was not found.", ecid: "005Xy1-ecid-2"))
        ) { _ = try await auth.currentUser() }
        transcript.check(server.requests)
        let refusal = ServerRefusal(status: 404, code: "MOBILE-58026", message: "The mobile backend was not found.", ecid: "005Xy1-ecid-2")
        XCTAssertEqual(AuthError.refused(refusal).description, "the server refused the request: HTTP 404 MOBILE-58026: The mobile backend was not found. (ecid 005Xy1-ecid-2)")
    }
}
