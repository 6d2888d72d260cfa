import AsyncHTTPClient
@testable import CofferAuth
import Foundation
import XCTest

/// The browser login's one-shot listener, exercised over real loopback HTTP as a browser would.
final class LoopbackListenerTests: XCTestCase {
    private func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 16)
        return (Int(response.status.code), String(buffer: body))
    }

    private func start() async throws -> (LoopbackListener, AuthorizationRedirect) {
        let holder = RedirectBox()
        let listener = try await LoopbackListener.start { holder.judge($0) }
        let redirect = AuthorizationRedirect(
            provider: OpenIDProvider(issuer: URL(string: "https://id.example")!, tokenEndpoint: URL(string: "https://id.example/t")!),
            clientID: "app", redirectURI: listener.redirectURI, scope: "openid")
        holder.redirect.withLock { $0 = redirect }
        return (listener, redirect)
    }

    /// It listens on 127.0.0.1 only, at /callback.
    func testRedirectURI() async throws {
        let (listener, _) = try await start()
        defer { listener.close() }
        XCTAssertTrue(listener.redirectURI.hasPrefix("http://127.0.0.1:"), listener.redirectURI)
        XCTAssertTrue(listener.redirectURI.hasSuffix("/callback"))
    }

    /// The wrong path gets 404, a wrong state 400, and neither ends the wait; the valid
    /// callback gets the "close this window" page and ends it; then a second callback finds
    /// nothing listening.
    func testOneValidCallbackIsAccepted() async throws {
        let (listener, redirect) = try await start()
        let base = "http://127.0.0.1:\(listener.port)"
        let waiting = Task { try await listener.result(timeout: .seconds(20)) }
        let wrongPath = try await get(base + "/elsewhere?code=x&state=\(redirect.state)")
        XCTAssertEqual(wrongPath.status, 404)
        let wrongState = try await get(base + "/callback?code=x&state=wrong")
        XCTAssertEqual(wrongState.status, 400)
        let accepted = try await get(base + "/callback?code=the-code&state=\(redirect.state)")
        XCTAssertEqual(accepted.status, 200)
        XCTAssertTrue(accepted.body.contains("You can close this window"), accepted.body)
        let code = try await waiting.value
        XCTAssertEqual(code, "the-code")
        do {
            _ = try await get(base + "/callback?code=again&state=\(redirect.state)")
            XCTFail("a second callback must find the listener closed")
        } catch {}
    }

    /// An error with the login's state ends the wait with the typed error.
    func testAccessDeniedEndsTheWait() async throws {
        let (listener, redirect) = try await start()
        let waiting = Task { try await listener.result(timeout: .seconds(20)) }
        let denied = try await get("http://127.0.0.1:\(listener.port)/callback?error=access_denied&state=\(redirect.state)")
        XCTAssertEqual(denied.status, 200)
        do {
            _ = try await waiting.value
            XCTFail("expected accessDenied")
        } catch {
            XCTAssertEqual(error as? AuthError, .accessDenied)
        }
    }

    /// No callback in time: `timeout`; the listener is closed.
    func testTimeout() async throws {
        let (listener, _) = try await start()
        do {
            _ = try await listener.result(timeout: .milliseconds(200))
            XCTFail("expected a timeout")
        } catch {
            XCTAssertEqual(error, .timeout)
        }
    }

    /// Cancelling the waiting task ends the wait with `cancelled`.
    func testCancellation() async throws {
        let (listener, _) = try await start()
        let waiting = Task { try await listener.result(timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        do {
            _ = try await waiting.value
            XCTFail("expected cancelled")
        } catch {
            XCTAssertEqual(error as? AuthError, .cancelled)
        }
    }
}

import Synchronization

private final class RedirectBox: Sendable {
    let redirect = Mutex<AuthorizationRedirect?>(nil)
    func judge(_ items: [URLQueryItem]) -> LoopbackListener.Verdict {
        redirect.withLock { $0 }?.judge(items) ?? .refuse(status: .serviceUnavailable)
    }
}
