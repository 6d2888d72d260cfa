import AsyncHTTPClient
@testable import CofferAuth
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// The browser login's one-shot listener, exercised over real loopback HTTP as a browser would.
final class LoopbackListenerTests: XCTestCase {
    private func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(5))
        let body = try await response.body.collect(upTo: 1 << 16)
        return (Int(response.status.code), String(buffer: body))
    }

    private func start(
        at fixed: LoopbackRedirectURI? = nil, limits: LoopbackListener.Limits = LoopbackListener.Limits()
    ) async throws -> (LoopbackListener, AuthorizationRedirect) {
        let holder = RedirectBox()
        let listener = try await LoopbackListener.start(at: fixed, limits: limits) { holder.judge($0) }
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

    /// A fixed redirect URI: the listener binds exactly its port and path (other paths 404),
    /// and the URI sent to the provider is the one given.
    func testAFixedRedirectURIBindsThatPortAndPath() async throws {
        let port = try LoopbackPort.free()
        let fixed = try LoopbackRedirectURI("http://localhost:\(port)/coffer/cb")
        let (listener, redirect) = try await start(at: fixed)
        XCTAssertEqual(listener.port, port)
        XCTAssertEqual(listener.redirectURI, "http://localhost:\(port)/coffer/cb")
        XCTAssertEqual(redirect.redirectURI, "http://localhost:\(port)/coffer/cb")
        let waiting = Task { try await listener.result(timeout: .seconds(20)) }
        let base = "http://127.0.0.1:\(port)"
        let wrongPath = try await get(base + "/callback?code=x&state=\(redirect.state)")
        XCTAssertEqual(wrongPath.status, 404, "only the given path")
        let accepted = try await get(base + "/coffer/cb?code=the-code&state=\(redirect.state)")
        XCTAssertEqual(accepted.status, 200)
        let code = try await waiting.value
        XCTAssertEqual(code, "the-code")
    }

    /// A fixed port already in use is a clear error, not a listener elsewhere.
    func testAFixedPortInUseIsAClearError() async throws {
        let (busy, _) = try await start()
        defer { busy.close() }
        do {
            _ = try await start(at: try LoopbackRedirectURI("http://127.0.0.1:\(busy.port)/callback"))
            XCTFail("a second listener on a port in use")
        } catch let error as AuthError {
            XCTAssertEqual(error, .transport(reason: "cannot listen on http://127.0.0.1:\(busy.port)/callback: the port is in use"))
        }
    }

    /// A connection that sends its request slowly, a byte at a time, is cut off at the request
    /// deadline.
    func testASlowSenderIsCutOffAtTheDeadline() async throws {
        let (listener, _) = try await start(limits: LoopbackListener.Limits(requestDeadline: .milliseconds(500)))
        defer { listener.close() }
        let descriptor = try HeldConnections.connect(port: listener.port)
        defer { close(descriptor) }
        _ = send(descriptor, "G", 1, Int32(MSG_NOSIGNAL))
        XCTAssertFalse(HeldConnections.isClosedByPeer(descriptor, within: .milliseconds(100)), "still open before the deadline")
        _ = send(descriptor, "E", 1, Int32(MSG_NOSIGNAL))
        XCTAssertTrue(HeldConnections.isClosedByPeer(descriptor, within: .seconds(5)), "closed at the deadline")
    }

    /// Beyond the connection cap, a new connection closes the oldest one that has sent nothing,
    /// so idle connections cannot keep the redirect out.
    func testTheCapEvictsTheOldestIdleConnection() async throws {
        let (listener, redirect) = try await start(limits: LoopbackListener.Limits(maxConnections: 4))
        let waiting = Task { try await listener.result(timeout: .seconds(20)) }
        let held = try HeldConnections(count: 4, toPort: listener.port)
        try await Task.sleep(for: .milliseconds(200))
        let accepted = try await get("http://127.0.0.1:\(listener.port)/callback?code=the-code&state=\(redirect.state)")
        XCTAssertEqual(accepted.status, 200)
        let code = try await waiting.value
        XCTAssertEqual(code, "the-code")
        // The listener's event loops admit connections in parallel, so which of the four was
        // admitted first is not fixed: one of them, and only one, gives way.
        let closed = held.descriptors.filter { HeldConnections.isClosedByPeer($0, within: .seconds(1)) }
        XCTAssertEqual(closed.count, 1, "one idle connection gave way to the callback")
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
