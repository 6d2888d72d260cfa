import Coffer
import CofferAgent
import CofferTestSupport
import Glibc
import XCTest

/// Kept connections (`identify`) served each on a thread of its own, up to
/// ``AgentServerLimits/keptConnectionThreads``: the same answers and the same bounds as on the
/// connection loop, requests that must wait handed back to the loop, and every one ended when
/// the agent stops.
final class KeptConnectionThreadsTests: InProcessAgentTestCase {
    /// A connection that has sent `identify` and had its answer.
    private func keptConnection() throws -> RawAgentConnection {
        let connection = try RawAgentConnection(socketPath)
        connection.send(AgentRequest.identify.message.frame)
        guard case .agent = try AgentReply(try XCTUnwrap(connection.reply()), to: .identify) else { throw CofferError.locked }
        return connection
    }

    private func waitForThreads(_ count: Int) {
        for _ in 0..<500 where server?.connectionsOnThreadsOfTheirOwn != count { usleep(10_000) }
    }

    private func assertAnswered(_ request: AgentRequest, on connection: RawAgentConnection, file: StaticString = #filePath, line: UInt = #line) throws {
        connection.send(request.message.frame)
        let reply = try XCTUnwrap(connection.reply(), "answered", file: file, line: line)
        switch try AgentReply(reply, to: request) {
        case .agent, .done, .notHeld: break
        case let other: XCTFail("\(other)", file: file, line: line)
        }
    }

    /// With one thread for kept connections, the first kept connection goes to it and the second
    /// stays on the loop; both are answered, request after request, and both close quietly at the
    /// keep-alive, which frees the thread.
    func testKeptConnectionsBeyondTheThreadsStayOnTheLoop() throws {
        try startServer(AgentServerLimits(requestDeadline: .seconds(5), idleTimeout: .seconds(5), keepAliveTimeout: .milliseconds(800), keptConnectionThreads: 1))
        let first = try keptConnection(), second = try keptConnection()
        waitForThreads(1)
        XCTAssertEqual(server?.connectionsOnThreadsOfTheirOwn, 1, "one on the thread, the other on the loop")
        for _ in 0..<3 {
            for connection in [first, second] {
                try assertAnswered(.ping, on: connection)
                try assertAnswered(.holds(vault: "/nowhere.vault"), on: connection)
            }
        }
        for connection in [first, second] {
            XCTAssertTrue(connection.isReadable(within: .seconds(5)), "closed after the keep-alive")
            XCTAssertTrue(connection.isClosedByTheAgent(), "with no reply: none was due")
        }
        waitForThreads(0)
        XCTAssertEqual(server?.connectionsOnThreadsOfTheirOwn, 0)
    }

    /// On its thread, a kept connection keeps the loop's bounds: a request that starts and
    /// stalls is answered with the loop's error at the idle timeout and closed, and so is one
    /// that trickles past the request deadline.
    func testAKeptConnectionOnItsThreadKeepsTheRequestBounds() throws {
        try startServer(AgentServerLimits(requestDeadline: .seconds(1), idleTimeout: .milliseconds(400), keepAliveTimeout: .seconds(30)))
        let stalled = try keptConnection()
        waitForThreads(1)
        stalled.send(Array(AgentRequest.ping.message.frame.prefix(3)))
        guard case .failure(.invalidArgument(let silent)) = try AgentReply(try XCTUnwrap(stalled.reply()), to: .ping) else { return XCTFail("no error reply") }
        XCTAssertEqual(silent, "the connection sent nothing for 0.4 seconds")
        XCTAssertTrue(stalled.isClosedByTheAgent())

        let trickling = try keptConnection()
        let frame = AgentRequest.holds(vault: "/" + String(repeating: "v", count: 100)).message.frame
        var sent = 0
        while sent < frame.count, !trickling.isReadable(within: .milliseconds(150)) {
            trickling.send([frame[sent]])
            sent += 1
        }
        XCTAssertLessThan(sent, frame.count, "cut off before the frame was done")
        guard case .failure(.invalidArgument(let late)) = try AgentReply(try XCTUnwrap(trickling.reply()), to: .ping) else { return XCTFail("no error reply") }
        XCTAssertEqual(late, "the request did not arrive within 1.0 seconds")
        XCTAssertTrue(trickling.isClosedByTheAgent())
    }

    /// A malformed request on a kept connection's thread gets the loop's error reply, and the
    /// connection closes; the agent goes on serving.
    func testAMalformedRequestOnAKeptConnectionIsRefused() throws {
        try startServer(AgentServerLimits(keepAliveTimeout: .seconds(30)))
        let kept = try keptConnection()
        waitForThreads(1)
        kept.send([0, 0, 0, 3, 0x7f, 0, 0])
        guard case .failure(.invalidArgument(let reason)) = try AgentReply(try XCTUnwrap(kept.reply()), to: .ping) else { return XCTFail("no error reply") }
        XCTAssertTrue(reason.hasPrefix("a malformed request") || reason.hasPrefix("a request that breaks the protocol"), reason)
        XCTAssertTrue(kept.isClosedByTheAgent())
        try assertAnswered(.ping, on: try keptConnection())
    }

    /// An unlock sent on a kept connection (Argon2id: it must not hold up the thread's caller
    /// loop) goes back to the loop and its unlock workers, is answered on the same connection,
    /// which stays kept: the next requests are answered on it, by a thread again.
    func testAnUnlockOnAKeptConnectionGoesBackToTheLoopAndTheConnectionStaysKept() throws {
        try startServer(AgentServerLimits(keepAliveTimeout: .seconds(30)))
        let url = folder.file("kept.vault")
        _ = try Vault.create(at: url, with: .passphrase("kept"), configuration: Vault.Configuration(passphraseCost: .moderate))
        let path = url.resolvingSymlinksInPath().path
        let kept = try keptConnection()
        waitForThreads(1)
        let unlock = AgentRequest.unlock(vault: path, credential: .passphrase(SecureBytes(copying: Array("kept".utf8))), lifetime: 60)
        kept.send(unlock.message.frame)
        guard case .done = try AgentReply(try XCTUnwrap(kept.reply(), "the unlock's reply"), to: unlock) else { return XCTFail("the unlock failed") }
        kept.send(AgentRequest.holds(vault: path).message.frame)
        guard case .done = try AgentReply(try XCTUnwrap(kept.reply()), to: .holds(vault: path)) else { return XCTFail("not held") }
        waitForThreads(1)
        XCTAssertEqual(server?.connectionsOnThreadsOfTheirOwn, 1, "back on a thread of its own")
        try assertAnswered(.ping, on: kept)
    }

    /// A `stop` sent on a share's kept connection is refused, and the share goes on serving (its
    /// other clients keep it); before, the refusal was sent and the share's loop stopped anyway,
    /// removing its socket for every client.
    func testAStopOnASharesKeptConnectionIsRefusedAndTheShareGoesOn() throws {
        try startServer(AgentServerLimits(keepAliveTimeout: .seconds(600)))
        let url = folder.file("shared.vault")
        let key = SecureBytes.random(count: 32)
        let vault = try Vault.create(at: url, with: .key(key))
        let path = url.resolvingSymlinksInPath().path
        server?.holdUntilStopped(vault, at: path)
        let shareSocket = folder.file("share.sock").path
        let grant = ShareGrant(scope: .service(itemClass: .genericPassword, service: "granted", account: nil), readWrite: false)
        guard case .done = try AgentClient(path: socketPath).send(.share(vault: path, socket: shareSocket, grant: grant, lifetime: 600, credential: .key(key))) else {
            return XCTFail("shared")
        }
        let kept = try RawAgentConnection(shareSocket)
        kept.send(AgentRequest.identify.message.frame)
        guard case .agent = try AgentReply(try XCTUnwrap(kept.reply()), to: .identify) else { return XCTFail("identify") }
        kept.send(AgentRequest.stop.message.frame)
        guard case .failure(.accessDenied) = try AgentReply(try XCTUnwrap(kept.reply(), "the stop is answered"), to: .stop) else {
            return XCTFail("the stop is refused")
        }
        usleep(200_000)
        XCTAssertEqual(access(shareSocket, F_OK), 0, "the share's socket is still there")
        let other = try RawAgentConnection(shareSocket)
        other.send(AgentRequest.ping.message.frame)
        guard case .agent = try AgentReply(try XCTUnwrap(other.reply(), "the share answers another client"), to: .ping) else {
            return XCTFail("ping through the share")
        }
        guard case .done = try AgentClient(path: socketPath).send(.unshare(socket: shareSocket)) else { return XCTFail("unshared") }
    }

    /// A `stop` sent on a kept connection is answered on it, and the agent stops; the other
    /// kept connections are closed, and the server ends within its bounds.
    func testAStopOnAKeptConnectionEndsTheAgentAndEveryKeptConnection() throws {
        try startServer(AgentServerLimits(keepAliveTimeout: .seconds(600)))
        let others = try (0..<3).map { _ in try keptConnection() }
        let stopping = try keptConnection()
        waitForThreads(4)
        stopping.send(AgentRequest.stop.message.frame)
        guard case .done = try AgentReply(try XCTUnwrap(stopping.reply(), "the stop is answered"), to: .stop) else { return XCTFail("stop") }
        XCTAssertTrue(waitForTheServerToEnd(), "the server ended")
        for connection in others {
            XCTAssertTrue(connection.isReadable(within: .seconds(5)))
            XCTAssertTrue(connection.isClosedByTheAgent(), "closed at the stop")
        }
        XCTAssertEqual(server?.connectionsOnThreadsOfTheirOwn, 0)
    }
}
