import CofferAgentWire
import CofferTestSupport
import Foundation
import Glibc
import XCTest
@testable import Coffer

/// The kept connection (``KeptAgentConnection``) against an agent that identifies the process and
/// then never answers: every request over it still ends within the timeout of the client that
/// sends it, whether that is the timeout the connection was opened with or another one.
final class KeptAgentConnectionTests: XCTestCase {
    let folder = TemporaryFolder()
    var socket: String { folder.file("agent.sock").path }

    override func tearDown() {
        KeptAgentConnection.close()
        super.tearDown()
    }

    /// A server on `socket` that answers `identify` and then reads requests without answering,
    /// until its client closes the connection.
    private func startSilentAgent() throws -> Thread {
        let listener = try AgentSocket.listen(path: socket)
        let thread = Thread {
            defer { close(listener) }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            guard AgentSocket.read(from: connection) != nil else { return }
            let identified = AgentReply.agent(pid: getpid(), vaults: [], failures: [], secretService: nil).message
            guard AgentSocket.write(identified, to: connection) else { return }
            while AgentSocket.read(from: connection) != nil {}
        }
        thread.start()
        return thread
    }

    private func assertRequestEnds(within timeout: Duration, file: StaticString = #filePath, line: UInt = #line) {
        let client = AgentClient(path: socket, timeout: timeout)
        let started = ContinuousClock.now
        XCTAssertThrowsError(try client.send(.holds(vault: "/v")), file: file, line: line)
        let took = ContinuousClock.now - started
        XCTAssertGreaterThanOrEqual(took, timeout - .milliseconds(20), "the client gave up before its timeout", file: file, line: line)
        XCTAssertLessThan(took, timeout + .milliseconds(TestTiming.limit(milliseconds: 2_000)), file: file, line: line)
    }

    /// The timeout the connection was opened with bounds its requests: set once, when it opens.
    func testARequestOverTheKeptConnectionEndsAtTheTimeoutItWasOpenedWith() throws {
        _ = try startSilentAgent()
        try KeptAgentConnection.connect(path: socket, timeout: .milliseconds(300))
        XCTAssertTrue(KeptAgentConnection.isKept(for: socket))
        assertRequestEnds(within: .milliseconds(300))
        XCTAssertFalse(KeptAgentConnection.isKept(for: socket), "a request that timed out drops the connection")
    }

    /// A client with a longer timeout than the connection's gets its own: the agent is given the
    /// whole of it, not cut off at the timeout the connection was opened with.
    func testAClientWithAnotherTimeoutHasItsOwnOnTheKeptConnection() throws {
        _ = try startSilentAgent()
        try KeptAgentConnection.connect(path: socket, timeout: .milliseconds(100))
        assertRequestEnds(within: .milliseconds(700))
    }
}
