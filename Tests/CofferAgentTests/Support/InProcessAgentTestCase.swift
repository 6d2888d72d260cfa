import Coffer
import CofferAgent
import CofferAgentWire
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// A test case that runs an agent in this process, on a socket in a folder of its own, and
/// stops it after each test.
class InProcessAgentTestCase: XCTestCase {
    let folder = TemporaryFolder()
    var socketPath: String { folder.file("agent.sock").path }
    private(set) var server: AgentServer?
    private var thread: Thread?

    /// The agent hashes each program's executable the first time it sees one: this test
    /// process's own (a test bundle of about 180 MB) is hashed here, once for all the tests, so
    /// that no request's time bound includes it.
    override class func setUp() {
        super.setUp()
        _ = try? CallerResolver().resolve(pid: getpid(), uid: geteuid())
    }

    /// Runs an agent in this process on `socketPath`.
    func startServer(_ limits: AgentServerLimits) throws {
        let listener = try AgentSocket.listen(path: socketPath)
        let server = try AgentServer(listener: listener, idleTimeout: .seconds(600), limits: limits)
        self.server = server
        let thread = Thread { server.run() }
        self.thread = thread
        thread.start()
    }

    override func tearDown() {
        server?.stop()
        waitForTheServerToEnd()
        super.tearDown()
    }

    /// Whether the server's thread has ended, waiting up to `seconds`.
    @discardableResult
    func waitForTheServerToEnd(within seconds: TimeInterval = 5) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while thread?.isExecuting == true, Date() < deadline { usleep(10_000) }
        return thread?.isExecuting != true
    }
}
