import CofferTestSupport
@testable import CofferAuth
import CofferDevBackend
import XCTest

/// Bad replies, hung servers, foreign origins and secrets: typed errors, nothing lost, nothing leaked.
final class ChallengeRobustnessTests: ChallengeTestCase {
    static let pin = MobileFirstConfiguration.pinCodeCheck

    /// Logs in to the PIN check once, so the client is registered and holds a token.
    private func registeredClient() async throws -> (ChallengeClient, ChallengeSession) {
        let client = fixture.challengeClient()
        client.registerChallengeHandler(TestChallengeHandler(securityCheck: Self.pin, .answers([["pin": "1234"], ["pin": "1234"]])))
        let status1 = try await resource("balance").send(using: client).status
        XCTAssertEqual(status1, 200)
        return (client, try XCTUnwrap(try fixture.storedChallengeSession(of: client)))
    }

    /// Malformed, 5xx, forged and hung replies from the challenge endpoints are typed errors, and the stored registration and tokens stay as they were.
    func testBadRepliesAreTypedErrorsAndChangeNothingStored() async throws {
        let (client, stored) = try await registeredClient()
        fixture.clock.advance(by: 61)  // the token and the PIN's success expire: the next request runs the flow again
        let faults: [(Fault, (AuthError) -> Bool)] = [
            (.body("{", contentType: "application/json"), { if case .malformedResponse = $0 { true } else { false } }),
            (.body(#"{"successes": {"Pin\nCodeAttempts": {}}}"#, contentType: "application/json"), { if case .malformedResponse = $0 { true } else { false } }),
            (.body(#"{"successes": {}}"#, contentType: "text/html"), { if case .malformedResponse = $0 { true } else { false } }),
            (.oversizedBody(bytes: 2 << 20, chunked: true), { if case .malformedResponse = $0 { true } else { false } }),
            (.status(500), { $0 == .serverError(status: 500) }),
            (.status(403), { $0 == .oauthError(code: "injected_fault", status: 403) }),
            (.hang, { $0 == .timeout }),
        ]
        for (fault, expected) in faults {
            fixture.backend.faults.inject(fault, on: .challenges)
            await XCTAssertThrowsAuthError(matching: expected) { try await self.resource("balance").send(using: client) }
            XCTAssertEqual(try fixture.storedChallengeSession(of: client), stored, "\(fault) changed the stored session")
        }
        let status2 = try await resource("balance").send(using: client).status
        XCTAssertEqual(status2, 200, "the client recovers")
    }

    /// A server that keeps challenging whatever the answer gives tooManyChallengeRounds after the configured rounds.
    func testEndlessChallengesStopAfterTheConfiguredRounds() async throws {
        try await restartFixture { $0.mobileFirst.pinCodeAttempts.maxAttempts = 1000 }
        let client = fixture.challengeClient { $0.maxChallengeRounds = 5 }
        let handler = TestChallengeHandler(securityCheck: Self.pin, .answers(Array(repeating: ["pin": "0000"], count: 100)))
        client.registerChallengeHandler(handler)
        await XCTAssertThrowsAuthError(.tooManyChallengeRounds(check: Self.pin)) { try await self.resource("balance").send(using: client) }
        XCTAssertEqual(handler.challenges.count, 5)
    }

    /// A server that forgot the client (invalid_client) gets one new registration, which is stored.
    func testAForgottenClientRegistersAgainOnce() async throws {
        let (client, stored) = try await registeredClient()
        await fixture.stop()
        fixture = try await AuthFixture.start()  // a new server: it knows no client
        let moved = fixture.challengeClient()
        XCTAssertNotEqual(moved.server.storageKey, client.server.storageKey, "a new port is another server")
        // Give the new server's client the old registration, as if the server had restarted.
        var session = stored
        session.server = moved.server
        session.tokens = []
        let data = try JSONEncoder.sessionEncoder.encode(session)
        try fixture.keychain.set(data, for: "challenges \(moved.server.storageKey)")
        moved.registerChallengeHandler(TestChallengeHandler(securityCheck: Self.pin, .answers([["pin": "1234"]])))

        let status3 = try await resource("balance").send(using: moved).status

        XCTAssertEqual(status3, 200)
        let registration = try fixture.storedChallengeSession(of: moved)?.registration
        XCTAssertNotNil(registration)
        XCTAssertNotEqual(registration, stored.registration)
        XCTAssertEqual(fixture.backend.statistics.registrations, 1)
    }

    /// Tokens are sent only to the server's origin: a request to another origin is refused before anything is sent.
    func testRequestsToAnotherOriginAreRefused() async throws {
        let client = fixture.challengeClient()
        let port = fixture.backend.baseURL.port ?? 0
        let elsewhere = ResourceRequest(url: URL(string: "http://127.0.0.2:\(port)/mfp/balance")!)
        await XCTAssertThrowsAuthError(matching: { if case .invalidRequest = $0 { true } else { false } }) {
            try await elsewhere.send(using: client)
        }
    }

    /// No PIN, password, private key or token appears in the client's or the server's logs (at trace level), or in descriptions and dumps.
    func testSecretsAppearInNoLogAndNoDescription() async throws {
        let pinCode = "pin-5ecret-7319"
        let capture = LogCapture()
        try await restartFixture { configuration in
            configuration.mobileFirst.pinCode = pinCode
            configuration.logger = capture.logger(label: "server")
        }
        let client = fixture.challengeClient { $0.logger = capture.logger(label: "client") }
        let pin = TestChallengeHandler(securityCheck: Self.pin, .answers([["pin": "0000"], ["pin": .string(pinCode)]]))
        client.registerChallengeHandler(pin)
        let status4 = try await resource("balance").send(using: client).status
        XCTAssertEqual(status4, 200)

        let session = try XCTUnwrap(try fixture.storedChallengeSession(of: client))
        let key = session.registration!.key.privateKey
        let secrets = [pinCode, key.pkcs8DERRepresentation.base64EncodedString(), key.derRepresentation.base64EncodedString()]
            + session.tokens.map(\.token.value)
        var shown = [capture.text, String(describing: session), String(reflecting: session), "\(pin)", "\(client.server)"]
        var dumped = ""
        dump(session, to: &dumped)
        dump(session.registration!, to: &dumped)
        shown.append(dumped)
        shown.append(ChallengeAnswer.answer(["pin": .string(pinCode)]).description)
        XCTAssertGreaterThan(capture.count, 0, "the logs were captured")
        for text in shown {
            for secret in secrets { XCTAssertFalse(text.contains(secret), "a secret was shown: \(text.prefix(200))") }
        }
    }
}

extension JSONEncoder {
    /// The encoding the session store uses.
    static var sessionEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}
