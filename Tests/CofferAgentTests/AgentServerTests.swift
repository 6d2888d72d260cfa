import Coffer
import CofferAgent
import CofferTestSupport
import Glibc
import XCTest

/// The agent over a real Unix socket: requests served, bad frames answered with an error, and
/// the agent still serving afterwards.
final class AgentServerTests: XCTestCase {
    let folder = TemporaryFolder()
    var socketPath: String { folder.file("agent.sock").path }
    private var server: AgentServer!
    private var thread: Thread!

    override func setUpWithError() throws {
        let listener = try AgentSocket.listen(path: socketPath)
        let server = AgentServer(listener: listener, idleTimeout: .seconds(600), connectionTimeout: .seconds(1))
        self.server = server
        thread = Thread { server.run() }
        thread.start()
    }

    override func tearDown() {
        server.stop()
        let deadline = Date().addingTimeInterval(5)
        while thread.isExecuting, Date() < deadline { usleep(10_000) }
    }

    private var client: AgentClient { AgentClient(path: socketPath, timeout: .seconds(5)) }

    /// Sends raw bytes and reads what comes back.
    private func exchange(_ bytes: [UInt8]) throws -> AgentMessage? {
        let descriptor = try AgentSocket.connect(path: socketPath)
        defer { close(descriptor) }
        AgentSocket.setTimeout(descriptor, .seconds(5))
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return AgentSocket.read(from: descriptor)
    }

    private func assertErrorReply(_ reply: AgentMessage?, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reply?.kind, 0x81, reason, file: file, line: line)
    }

    func testAHeldVaultIsServedAndAnotherIsNot() throws {
        let url = folder.file("served.vault")
        let keyFile = folder.file("served.key")
        try KeyFile.generate(at: keyFile)
        _ = try Vault.create(at: url, with: .keyFile(keyFile))
        let path = url.resolvingSymlinksInPath().path

        XCTAssertNil(try client.store(for: path), "nothing held before unlock")
        guard case .done = try client.send(.unlock(vault: path, credential: .keyFile(keyFile.path), lifetime: 60)) else {
            return XCTFail("unlock failed")
        }
        let store = try XCTUnwrap(try client.store(for: path))
        let id = ItemID.genericPassword(service: "mail", account: "ada")
        try store.set(Data("s3cret".utf8), for: id, options: ItemOptions())
        XCTAssertEqual(try store.secret(for: id), Data("s3cret".utf8))
        XCTAssertEqual(try store.items(matching: ItemQuery()).map(\.id), [id])
        XCTAssertEqual(try Vault.open(at: url, unlock: .keyFile(keyFile)).secret(for: id), Data("s3cret".utf8), "the agent wrote the vault file")

        guard case .done = try client.send(.lock(vault: path)) else { return XCTFail("lock failed") }
        XCTAssertNil(try client.store(for: path))
        XCTAssertThrowsError(try store.secret(for: id)) { XCTAssertEqual($0 as? CofferError, .locked) }
    }

    func testAWrongKeyFileIsAnErrorReplyAndNothingIsHeld() throws {
        let url = folder.file("other.vault")
        let right = folder.file("right.key")
        try KeyFile.generate(at: right)
        _ = try Vault.create(at: url, with: .keyFile(right))
        let wrong = folder.file("wrong.key")
        try KeyFile.generate(at: wrong)
        let path = url.resolvingSymlinksInPath().path
        guard case .failure(let error) = try client.send(.unlock(vault: path, credential: .keyFile(wrong.path), lifetime: 60)) else {
            return XCTFail("a wrong key unlocked")
        }
        XCTAssertEqual(error, .wrongKey)
        XCTAssertNil(try client.store(for: path))
    }

    func testBadFramesGetAnErrorReplyAndTheAgentKeepsServing() throws {
        assertErrorReply(try exchange([0xFF, 0xFF, 0xFF, 0xFF]), "a length over 4 MiB")
        assertErrorReply(try exchange([0, 0, 0, 1, 1]), "a length under 2")
        assertErrorReply(try exchange([0, 0, 0, 2, 9, 1]), "another protocol version")
        assertErrorReply(try exchange([0, 0, 0, 2, 1, 0x7F]), "an unknown request")
        assertErrorReply(try exchange([0, 0, 0, 7, 1, 0x11, 0x01, 0, 0, 0, 9]), "a field past the end")
        assertErrorReply(try exchange([0, 0, 0, 40, 1, 0x01]), "a frame cut short: the connection timeout ends the wait")
        assertErrorReply(try exchange([]), "nothing sent before the timeout")
        guard case .agent(let pid, _, _) = try client.send(.ping) else { return XCTFail("no ping reply") }
        XCTAssertEqual(pid, getpid())
    }

    func testAStaleSocketIsReplacedAndALiveOneIsNot() throws {
        XCTAssertThrowsError(try AgentSocket.listen(path: socketPath), "an agent already answers there")
        let stale = folder.file("stale.sock").path
        let first = try AgentSocket.listen(path: stale)
        close(first)  // the socket file stays, as after kill -9
        XCTAssertThrowsError(try AgentClient(path: stale).send(.ping)) { error in
            guard case .stale = error as? AgentSocket.Unreachable else { return XCTFail("\(error)") }
        }
        let second = try AgentSocket.listen(path: stale)
        close(second)
    }
}
