import AsyncHTTPClient
@testable import CofferAuth
import CofferDevBackend
import XCTest

/// Each bad reply gives a typed error, stores nothing new, leaves the earlier session as it
/// was, and returns within the deadline. The replies come over real sockets from the dev backend.
final class FaultyReplyTests: AuthTestCase {

    /// Logs in, arms `fault` on `endpoint`, tries a login (or an SSO exchange) again, and checks
    /// the error and that the earlier session is untouched, in the keychain and in memory.
    private func assertFault(
        _ fault: Fault, on endpoint: FaultEndpoint = .token, gives expected: (AuthError) -> Bool,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        let storedBefore = try fixture.storedSession()
        let headersBefore = try await auth.authorizationHeaders()

        fixture.backend.faults.inject(fault, on: endpoint)
        let started = ContinuousClock.now
        await XCTAssertThrowsAuthError(matching: expected, {
            if endpoint == .exchange {
                try await auth.authenticateSSOTokenExchange(DevBackend.Configuration.defaultSSOToken.token, storeAccessToken: true)
            } else {
                try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
            }
        }, file: file, line: line)
        XCTAssertLessThan(ContinuousClock.now - started, AuthFixture.noHang, "no hang", file: file, line: line)

        XCTAssertEqual(try fixture.storedSession(), storedBefore, "nothing new is stored", file: file, line: line)
        let headersAfter = try await auth.authorizationHeaders()
        XCTAssertEqual(headersAfter, headersBefore, "the earlier session is unchanged", file: file, line: line)
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200, "the earlier session still works", file: file, line: line)
    }

    private func isMalformed(_ error: AuthError) -> Bool {
        if case .malformedResponse = error { return true }
        return false
    }

    /// A body that is not JSON is `malformedResponse`.
    func testMalformedJSON() async throws {
        try await assertFault(.body("{access_token: nope", contentType: "application/json"), gives: isMalformed)
    }

    /// A JSON body cut short is `malformedResponse`.
    func testTruncatedJSON() async throws {
        try await assertFault(.body(#"{"access_token": "abc", "token_type": "Bea"#, contentType: "application/json"), gives: isMalformed)
    }

    /// A reply without `access_token` is `malformedResponse`, as is one without `token_type` or with a bad `expires_in`.
    func testMissingOrBadFields() async throws {
        try await assertFault(.body(#"{"token_type": "Bearer", "expires_in": 60}"#, contentType: "application/json"), gives: { $0 == .malformedResponse(reason: "missing access_token") })
        try await assertFault(.body(#"{"access_token": "abc"}"#, contentType: "application/json"), gives: { $0 == .malformedResponse(reason: "missing token_type") })
        try await assertFault(.body(#"{"access_token": "abc", "token_type": "Bearer", "expires_in": -5}"#, contentType: "application/json"), gives: isMalformed)
        try await assertFault(.body(#"{"access_token": "abc", "token_type": "mac"}"#, contentType: "application/json"), gives: isMalformed)
        try await assertFault(.body(#"["access_token"]"#, contentType: "application/json"), gives: isMalformed)
    }

    /// A body over 1 MiB is `malformedResponse`, whether announced by Content-Length or only found while reading.
    func testBodyOverOneMebibyte() async throws {
        try await assertFault(.oversizedBody(bytes: (1 << 20) + 1, chunked: false), gives: isMalformed)
        try await assertFault(.oversizedBody(bytes: (1 << 20) + 1, chunked: true), gives: isMalformed)
    }

    /// A good token in a reply that is not typed as JSON is `malformedResponse`.
    func testWrongContentType() async throws {
        let body = #"{"access_token": "abc", "token_type": "Bearer", "expires_in": 60}"#
        try await assertFault(.body(body, contentType: "text/html"), gives: isMalformed)
        try await assertFault(.body(body, contentType: nil), gives: isMalformed)
    }

    /// A 5xx is `serverError(status)`.
    func testServerErrors() async throws {
        try await assertFault(.status(500), gives: { $0 == .serverError(status: 500) })
        try await assertFault(.status(503), gives: { $0 == .serverError(status: 503) })
    }

    /// A reply slower than the deadline is `timeout`.
    func testSlowReply() async throws {
        try await assertFault(.delay(AuthFixture.requestTimeout + .milliseconds(500)), gives: { $0 == .timeout })
    }

    /// A reply that never comes is `timeout`.
    func testHungReply() async throws {
        try await assertFault(.hang, gives: { $0 == .timeout })
    }

    /// A reply whose body stalls halfway is `timeout`: the deadline covers the body too.
    func testStalledBody() async throws {
        try await assertFault(.stallBody(prefix: #"{"access_token": "#), gives: { $0 == .timeout })
    }

    /// A connection closed halfway through the body is `transport`.
    func testConnectionCutMidBody() async throws {
        try await assertFault(.cutConnection(prefix: #"{"access_token": "#), gives: { if case .transport = $0 { true } else { false } })
    }

    /// The OMC exchange endpoint's bad replies are typed the same way.
    func testBadExchangeReplies() async throws {
        try await assertFault(.body("not json", contentType: "application/json"), on: .exchange, gives: isMalformed)
        try await assertFault(.status(502), on: .exchange, gives: { $0 == .serverError(status: 502) })
        try await assertFault(.hang, on: .exchange, gives: { $0 == .timeout })
    }

    /// A bad reply to a renewal leaves the stored session as it was; the next request renews successfully.
    func testBadRenewalReplyLeavesTheSessionAndRecovers() async throws {
        let auth = fixture.authorization()
        try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        fixture.clock.advance(by: fixture.backend.configuration.tokenLifetime + 1)
        let storedBefore = try fixture.storedSession()
        fixture.backend.faults.inject(.body("{", contentType: "application/json"), on: .token)
        await XCTAssertThrowsAuthError(matching: isMalformed) { try await auth.authorizationHeaders() }
        XCTAssertEqual(try fixture.storedSession(), storedBefore)
        let reply = try await auth.get(fixture.backend.protectedURL)
        XCTAssertEqual(reply.status, 200)
    }

    /// A backend that refuses connections is `transport` once the connect timeout passes, within the deadline.
    func testUnreachableBackendIsTransport() async throws {
        let client = HTTPClient(configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: .milliseconds(200))))
        var backend = fixture.backend.mobileBackend()
        backend.authentication = .oauth(tokenEndpoint: URL(string: "http://127.0.0.1:1/token")!, clientID: "c", clientSecret: "s")
        let auth = fixture.authorization(backend, httpClient: client)
        await XCTAssertThrowsAuthError(matching: { if case .transport = $0 { true } else { false } }) {
            try await auth.authenticate(userName: AuthFixture.user.name, password: AuthFixture.user.password)
        }
        try await client.shutdown()
    }
}
