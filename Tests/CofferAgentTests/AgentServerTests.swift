import Coffer
import CofferAgent
import CofferAgentWire
import CofferBase
import CofferTestSupport
import Glibc
import XCTest

/// The agent over a real Unix socket: requests served, bad frames answered with an error, and
/// the agent still serving afterwards.
final class AgentServerTests: InProcessAgentTestCase {
    /// Deadlines short enough for a test to wait them out.
    static let shortLimits = AgentServerLimits(requestDeadline: .seconds(1), idleTimeout: .seconds(1), replyDeadline: .seconds(5))

    /// Runs an agent in this process on `socketPath`, with short deadlines unless told otherwise.
    override func startServer(_ limits: AgentServerLimits = shortLimits) throws {
        try super.startServer(limits)
    }

    var client: AgentClient { AgentClient(path: socketPath, timeout: .seconds(5)) }

    /// Sends raw bytes and reads what comes back.
    private func exchange(_ bytes: [UInt8]) throws -> AgentMessage? {
        let connection = try RawAgentConnection(socketPath)
        connection.send(bytes)
        return connection.reply()
    }

    private func assertErrorReply(_ reply: AgentMessage?, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reply?.kind, 0x81, reason, file: file, line: line)
    }

    func testAHeldVaultIsServedAndAnotherIsNot() throws {
        try startServer()
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

    /// Unlocking a vault the agent already holds (pam_coffer does at every login, `coffer unlock`
    /// when run again) leaves the held vault's SQLite locks in place: another process that opens
    /// and closes the vault then leaves its -wal alone, and the agent goes on reading and writing.
    /// Before, the second open dropped the agent's locks, that process removed the -wal as the
    /// last one out, and the agent's next requests failed with "disk I/O error".
    func testUnlockingAHeldVaultAgainKeepsItsLocks() throws {
        let (url, keyFile, path) = try holdKeyFileVault()
        guard case .done = try client.send(.unlock(vault: path, credential: .keyFile(keyFile.path), lifetime: 60)) else {
            return XCTFail("the second unlock failed")
        }
        try assertTheHeldVaultKeepsItsLocks(url, keyFile: keyFile)
    }

    /// An `unlock` whose key file is the held vault itself (any program of the user can send one,
    /// knowing no secret) is refused without the vault being opened by path, so the agent keeps
    /// its SQLite locks: another process's close leaves the -wal, and what the agent writes
    /// afterwards is in the file. Before, reading the "key file" dropped the agent's locks, and
    /// writes made by other processes meanwhile were lost (found by review on 2026-11-29).
    func testAnUnlockNamingTheHeldVaultAsItsKeyFileKeepsItsLocks() throws {
        let (url, keyFile, path) = try holdKeyFileVault()
        guard case .failure(let error) = try client.send(.unlock(vault: path, credential: .keyFile(path), lifetime: 60)) else {
            return XCTFail("a vault was taken for a key file")
        }
        XCTAssertEqual(error, .invalidArgument(reason: "\(path) is a vault this process has open"))
        XCTAssertEqual(try SQLiteSharedLock.holder(of: path), "\(getpid())")
        try assertTheHeldVaultKeepsItsLocks(url, keyFile: keyFile)
    }

    private static let firstItem = ItemID.genericPassword(service: "com.example.multiprocess", account: "first")

    /// Starts the agent holding a new key-file vault, with ``firstItem`` written through it.
    private func holdKeyFileVault() throws -> (url: URL, keyFile: URL, path: String) {
        try startServer()
        let url = folder.file("held.vault"), keyFile = folder.file("held.key")
        try KeyFile.generate(at: keyFile)
        _ = try Vault.create(at: url, with: .keyFile(keyFile))
        let path = url.resolvingSymlinksInPath().path
        guard case .done = try client.send(.unlock(vault: path, credential: .keyFile(keyFile.path), lifetime: 60)) else {
            throw CofferError.invalidArgument(reason: "the first unlock failed")
        }
        try XCTUnwrap(try client.store(for: path)).set(Data("1".utf8), for: Self.firstItem, options: ItemOptions())
        return (url, keyFile, path)
    }

    /// Another process opens, writes and closes the vault the agent holds: the -wal stays (the
    /// agent's lock told that process it was not the last), and what the agent writes afterwards,
    /// and what that process wrote, are in the file.
    private func assertTheHeldVaultKeepsItsLocks(_ url: URL, keyFile: URL, line: UInt = #line) throws {
        let path = url.resolvingSymlinksInPath().path
        let other = try ChildProcess.run(BuiltProducts.executable("coffer-test-helper").path, ["open-loop", path, keyFile.path, "other", "1"])
        XCTAssertEqual(other.status, 0, other.stderrText, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"), "the vault the agent holds kept its -wal", line: line)
        let store = try XCTUnwrap(try client.store(for: path))
        let second = ItemID.genericPassword(service: "com.example.multiprocess", account: "second")
        try store.set(Data("2".utf8), for: second, options: ItemOptions())
        XCTAssertEqual(try store.secret(for: Self.firstItem), Data("1".utf8), line: line)
        let reopened = try Vault.open(at: url, unlock: .keyFile(keyFile))
        XCTAssertEqual(try reopened.secret(for: .genericPassword(service: "com.example.multiprocess", account: "other")), Data("0".utf8), line: line)
        XCTAssertEqual(try reopened.secret(for: second), Data("2".utf8), line: line)
    }

    func testAWrongKeyFileIsAnErrorReplyAndNothingIsHeld() throws {
        try startServer()
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

    /// Each request is attributed to the program that sent it: a real process (the test
    /// helper) pings the agent, and by the time it has its reply the agent has worked out its
    /// executable's real path and SHA-256 (`sha256sum`'s); a copy of the helper at another
    /// path is another program. Every request is still served alike.
    func testEachConnectionIsAttributedToTheProgramThatSentIt() throws {
        try startServer()
        let server = try XCTUnwrap(server)
        let helper = BuiltProducts.executable("coffer-test-helper").path
        let copy = folder.file("helper-copy").path
        try FileManager.default.copyItem(atPath: helper, toPath: copy)
        chmod(copy, 0o755)
        var programs: [Program] = []
        for executable in [helper, copy] {
            let child = try ChildProcess.start(executable, ["ping", socketPath], inputs: [0: nil])
            defer { child.stop() }
            XCTAssertTrue(child.waitForLine("replied", timeout: .milliseconds(TestTiming.limit(milliseconds: 20_000))), "served")
            let program = try XCTUnwrap(server.callers.rememberedProgram(pid: child.pid))
            XCTAssertEqual(program.executablePath, executable.realPathBytes)
            XCTAssertEqual(program.executableDigest, try sha256sum(executable))
            programs.append(program)
        }
        XCTAssertEqual(programs[0].executableDigest, programs[1].executableDigest)
        XCTAssertFalse(programs[0].matches(programs[1]), "the same bytes at another path are another program")
    }

    func testBadFramesGetAnErrorReplyAndTheAgentKeepsServing() throws {
        try startServer()
        assertErrorReply(try exchange([0xFF, 0xFF, 0xFF, 0xFF]), "a length over 4 MiB, refused on its prefix alone")
        assertErrorReply(try exchange([0, 0, 0, 1, 1]), "a length under 2")
        assertErrorReply(try exchange([0, 0, 0, 2, 9, 1]), "another protocol version")
        assertErrorReply(try exchange([0, 0, 0, 2, 1, 0x7F]), "an unknown request")
        assertErrorReply(try exchange([0, 0, 0, 7, 1, 0x11, 0x01, 0, 0, 0, 9]), "a field past the end")
        assertErrorReply(try exchange([0, 0, 0, 40, 1, 0x01]), "a frame cut short: the request deadline ends the wait")
        assertErrorReply(try exchange([]), "nothing sent: the idle timeout ends the wait")
        guard case .agent(let pid, _, _, _) = try client.send(.ping) else { return XCTFail("no ping reply") }
        XCTAssertEqual(pid, getpid())
    }

    func testAStaleSocketIsReplacedAndALiveOneIsNot() throws {
        try startServer()
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

    // MARK: - Under load and abuse

    /// A client sending one byte at a time, each well within the idle timeout, is cut off at the
    /// request deadline with an error reply, long before its frame is done. Before, each `recv`
    /// had its own timeout, so a byte every few seconds held a thread for as long as it liked.
    func testASlowSenderIsCutOffAtTheRequestDeadline() throws {
        try startServer(AgentServerLimits(requestDeadline: .seconds(1), idleTimeout: .seconds(3)))
        let frame = AgentRequest.holds(vault: "/" + String(repeating: "v", count: 100)).message.frame
        let connection = try RawAgentConnection(socketPath)
        let started = ContinuousClock.now
        var sent = 0
        while sent < frame.count, !connection.isReadable(within: .milliseconds(250)) {
            connection.send([frame[sent]])
            sent += 1
        }
        let reply = try XCTUnwrap(connection.reply(), "an error reply before the close")
        XCTAssertLessThan(sent, frame.count, "cut off before the frame was done")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10), "at the 1 s deadline, with room for a slow machine")
        guard case .failure(.invalidArgument(let reason)) = try AgentReply(reply, to: .ping) else { return XCTFail("\(reply)") }
        XCTAssertEqual(reason, "the request did not arrive within 1.0 seconds")
        XCTAssertTrue(connection.isClosedByTheAgent(), "closed after the reply")
    }

    /// Connections that send nothing are answered and closed after the idle timeout.
    func testSilentConnectionsAreClosedAfterTheIdleTimeout() throws {
        try startServer(AgentServerLimits(requestDeadline: .seconds(30), idleTimeout: .milliseconds(500)))
        let silent = try (0..<3).map { _ in try RawAgentConnection(socketPath) }
        for connection in silent {
            let reply = try XCTUnwrap(connection.reply())
            guard case .failure(.invalidArgument(let reason)) = try AgentReply(reply, to: .ping) else { return XCTFail("\(reply)") }
            XCTAssertEqual(reason, "the connection sent nothing for 0.5 seconds")
            XCTAssertTrue(connection.isClosedByTheAgent())
        }
        guard case .agent = try client.send(.ping) else { return XCTFail("no ping reply") }
    }

    /// Idle connections hold up no request: with 32 of them open (and the default, long
    /// timeouts), a ping is answered at once. Before, six were enough to stall the agent.
    func testIdleConnectionsHoldUpNoRequest() throws {
        try startServer(AgentServerLimits())
        let idle = try (0..<32).map { _ in try RawAgentConnection(socketPath) }
        guard case .agent = try AgentClient(path: socketPath, timeout: .seconds(2)).send(.ping) else { return XCTFail("no ping reply") }
        XCTAssertFalse(idle.contains { $0.isReadable(within: .zero) }, "under the cap, no idle connection was closed")
    }

    /// At the cap, a new connection takes the slot of the oldest idle one, which gets an error
    /// reply and is closed; the others stay open.
    func testAtTheCapTheOldestIdleConnectionMakesRoom() throws {
        try startServer(AgentServerLimits(requestDeadline: .seconds(30), idleTimeout: .seconds(30), maxConnections: 4))
        let idle = try (0..<4).map { _ in try RawAgentConnection(socketPath) }
        guard case .agent = try client.send(.ping) else { return XCTFail("the new request was refused") }
        let closed = try XCTUnwrap(idle[0].reply(), "the oldest was told why")
        guard case .failure(.storageUnavailable(let reason)) = try AgentReply(closed, to: .ping) else { return XCTFail("\(closed)") }
        XCTAssertEqual(reason, "the agent closed this idle connection to make room for a new one")
        XCTAssertTrue(idle[0].isClosedByTheAgent())
        XCTAssertFalse(idle[1...].contains { $0.isReadable(within: .milliseconds(100)) }, "the younger ones stay")
    }

    /// At the cap with no idle connection (every slot is writing a reply its client has not
    /// read yet), a new connection is refused with a reply that says so; the replies under way
    /// complete, and the agent serves again once they have.
    func testAtTheCapWithEveryConnectionServedANewOneIsRefused() throws {
        try startServer(AgentServerLimits(requestDeadline: .seconds(30), idleTimeout: .seconds(30), replyDeadline: .seconds(30), maxConnections: 2))
        let (path, id) = try heldVaultWithItem(secretBytes: Limits.maxSecretBytes)
        let busy = try (0..<2).map { _ in try RawAgentConnection(socketPath) }
        for connection in busy {
            connection.send(AgentRequest.secret(vault: path, id: id).message.frame)
            XCTAssertEqual(connection.receive(4).count, 4, "the 1 MiB reply has begun; the socket holds only part of it")
        }
        guard case .failure(.storageUnavailable(let reason)) = try client.send(.ping) else { return XCTFail("a third connection was served") }
        XCTAssertEqual(reason, "the agent is busy: all 2 connections are serving requests; try again")
        for connection in busy {
            XCTAssertGreaterThan(connection.receiveToEnd(), Limits.maxSecretBytes, "the reply under way completes")
        }
        guard case .agent = try client.send(.ping) else { return XCTFail("no ping reply after the replies completed") }
    }

    /// Unlocks run on threads of their own: while two Argon2id unlocks run one after the other,
    /// a ping is answered before either is done.
    func testUnlocksHoldUpNoOtherRequest() throws {
        try startServer(AgentServerLimits())
        let url = folder.file("slow.vault")
        _ = try Vault.create(at: url, with: .passphrase("slow"), configuration: Vault.Configuration(passphraseCost: .moderate))
        let unlock = AgentRequest.unlock(vault: url.path, credential: .passphrase(SecureBytes(copying: Array("slow".utf8))), lifetime: 60)
        let unlocking = try (0..<2).map { _ in try RawAgentConnection(socketPath) }
        for connection in unlocking { connection.send(unlock.message.frame) }
        guard case .agent = try client.send(.ping) else { return XCTFail("no ping reply") }
        XCTAssertFalse(unlocking[1].isReadable(within: .zero), "the second unlock is still under way")
        for connection in unlocking {
            guard case .done = try AgentReply(try XCTUnwrap(connection.reply()), to: unlock) else { return XCTFail("an unlock failed") }
        }
    }

    /// A program the agent has not seen before has its executable hashed whole (up to 1 GiB,
    /// seconds) before its first request is answered: on a prompt thread, so two such programs
    /// at once hold up no other client's request. (Before, the hashing ran on the two quick
    /// threads, and every other client waited for it; found by review on 2026-11-29.)
    func testNewProgramsBeingWorkedOutHoldUpNoOtherRequest() throws {
        try startServer(AgentServerLimits())
        let server = try XCTUnwrap(server)
        guard case .agent = try client.send(.ping) else { return XCTFail("no ping reply") }  // this process's program is known from now on
        let helper = BuiltProducts.executable("coffer-test-helper").path
        let newcomers = try (0..<2).map { index -> ChildProcess in
            let copy = folder.file("large-helper-\(index)").path
            try FileManager.default.copyItem(atPath: helper, toPath: copy)
            // A sparse tail up to the largest file the agent hashes.
            XCTAssertEqual(truncate(copy, off_t(FileDigests.maxFileBytes)), 0)
            chmod(copy, 0o755)
            return try ChildProcess.start(copy, ["ping", socketPath], inputs: [0: nil])
        }
        defer { newcomers.forEach { _ = $0.stop() } }
        let digests = server.callers.digests
        let hashed = digests.filesHashed
        let deadline = ContinuousClock.now + .seconds(TestTiming.scale * 20)
        while digests.filesBeingHashed < 2, digests.filesHashed == hashed, ContinuousClock.now < deadline { usleep(1_000) }
        XCTAssertEqual(digests.filesBeingHashed, 2, "both new programs' executables are being hashed")
        guard case .agent = try client.send(.ping) else { return XCTFail("no ping reply") }
        XCTAssertEqual(digests.filesHashed, hashed, "answered while neither hash had finished")
        for newcomer in newcomers {
            XCTAssertTrue(newcomer.waitForLine("replied", timeout: .milliseconds(TestTiming.limit(milliseconds: 60_000))), "each new program is served")
        }
    }

    /// A vault the agent holds, with one item whose secret is `secretBytes` long.
    private func heldVaultWithItem(secretBytes: Int) throws -> (String, ItemID) {
        let url = folder.file("held.vault")
        let keyFile = folder.file("held.key")
        try KeyFile.generate(at: keyFile)
        let id = ItemID.genericPassword(service: "big", account: "ada")
        try Vault.create(at: url, with: .keyFile(keyFile)).set(Data(repeating: 0x42, count: secretBytes), for: id, options: ItemOptions())
        let path = url.resolvingSymlinksInPath().path
        guard case .done = try client.send(.unlock(vault: path, credential: .keyFile(keyFile.path), lifetime: 60)) else {
            throw CofferError.locked
        }
        return (path, id)
    }

    // MARK: - Kept connections

    /// After `identify`, the agent keeps the connection open and answers the next requests on it,
    /// one at a time; without it, it closes the connection after its one reply. A kept
    /// connection with no request for the keep-alive is closed, with no reply.
    func testIdentifyKeepsTheConnectionForTheNextRequestsUntilTheKeepAliveRunsOut() throws {
        try startServer(AgentServerLimits(requestDeadline: .seconds(5), idleTimeout: .seconds(5), keepAliveTimeout: .milliseconds(700)))
        let once = try RawAgentConnection(socketPath)
        once.send(AgentRequest.ping.message.frame)
        XCTAssertNotNil(once.reply())
        XCTAssertTrue(once.isClosedByTheAgent(), "one request, one reply, closed")

        let kept = try RawAgentConnection(socketPath)
        kept.send(AgentRequest.identify.message.frame)
        guard case .agent(let pid, _, _, _) = try AgentReply(try XCTUnwrap(kept.reply()), to: .identify) else { return XCTFail("identify") }
        XCTAssertEqual(pid, getpid())
        for request in [AgentRequest.ping, .status, .ping] {
            kept.send(request.message.frame)
            guard case .agent = try AgentReply(try XCTUnwrap(kept.reply(), "answered on the kept connection"), to: request) else {
                return XCTFail("\(request)")
            }
        }
        XCTAssertFalse(kept.isReadable(within: .milliseconds(200)), "still open, nothing sent")
        XCTAssertTrue(kept.isReadable(within: .seconds(5)), "closed after the keep-alive")
        XCTAssertTrue(kept.isClosedByTheAgent(), "with no reply: none was due")
    }

    /// A process's kept connection carries `AgentClient`'s requests to its agent, and the agent
    /// works out the caller once, at the first request: the connection's later requests are
    /// that program's. When the agent has closed the kept connection (its keep-alive ran out),
    /// the next request goes over a new connection.
    func testAClientSendsItsRequestsOverItsKeptConnection() throws {
        try startServer(AgentServerLimits(requestDeadline: .seconds(5), idleTimeout: .seconds(5), keepAliveTimeout: .milliseconds(500)))
        defer { KeptAgentConnection.close() }
        XCTAssertTrue(KeptAgentConnection.open(path: socketPath, timeout: .seconds(5)))
        XCTAssertTrue(KeptAgentConnection.isKept(for: socketPath))
        guard case .agent = try client.send(.ping) else { return XCTFail("no ping reply") }
        XCTAssertTrue(KeptAgentConnection.isKept(for: socketPath), "answered over the kept connection")
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        XCTAssertEqual(server?.callers.rememberedProgram(pid: getpid())?.executablePath, executable.realPathBytes)
        usleep(1_500_000)
        guard case .agent = try client.send(.ping) else { return XCTFail("no ping reply after the keep-alive") }
        XCTAssertFalse(KeptAgentConnection.isKept(for: socketPath), "the closed connection was dropped, a new one used")
        XCTAssertFalse(KeptAgentConnection.open(path: folder.file("none.sock").path, timeout: .seconds(1)), "no agent, nothing kept")
    }

    // MARK: - The client

    /// A client checks the socket's folder once connected, before it sends anything: here one
    /// others may enter, where a plain listener records that no byte came.
    func testAClientSendsNothingToASocketInAFolderOthersCanEnter() throws {
        let open = folder.file("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        chmod(open.path, 0o777)
        let path = open.appendingPathComponent("agent.sock").path
        let listener = try AgentSocket.listen(path: path)
        defer { close(listener) }
        XCTAssertThrowsError(try AgentClient(path: path, timeout: .seconds(5)).send(.ping)) { error in
            guard case .untrusted(let reason) = error as? AgentSocket.Unreachable else { return XCTFail("\(error)") }
            XCTAssertEqual(reason, "insecure permissions on \(open.path): mode 777 lets others in; expected 700; nothing was sent to the agent at \(path)")
        }
        let accepted = accept(listener, nil, nil)
        XCTAssertGreaterThanOrEqual(accepted, 0, "the client did connect")
        defer { close(accepted) }
        var byte: UInt8 = 0
        XCTAssertEqual(recv(accepted, &byte, 1, 0), 0, "and closed without sending a byte")
    }
}

/// A connection to the agent that a test drives byte by byte.
final class RawAgentConnection {
    let descriptor: Int32

    init(_ path: String) throws {
        descriptor = try AgentSocket.connect(path: path, timeout: .seconds(5))
    }

    deinit {
        close(descriptor)
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The agent's reply frame, waiting up to 5 s; `nil` when it closed or sent a malformed one.
    func reply() -> AgentMessage? {
        AgentSocket.read(from: descriptor)
    }

    /// Up to `count` bytes, waiting up to 5 s.
    func receive(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let received = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + offset, count - offset, 0) }
            guard received > 0 else { break }
            offset += received
        }
        return Array(bytes[..<offset])
    }

    /// How many bytes come until the agent closes the connection.
    func receiveToEnd() -> Int {
        var total = 0
        while true {
            let chunk = receive(1 << 16)
            total += chunk.count
            if chunk.count < 1 << 16 { return total }
        }
    }

    /// Whether the agent has written something, or closed, within `timeout`.
    func isReadable(within timeout: Duration) -> Bool {
        var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&polled, 1, Int32(clamping: timeout.clampedMilliseconds)) > 0
    }

    /// Whether the agent has closed its end: nothing (more) to read, and the end of the stream.
    /// Whether the agent closed the connection: the end of the stream, or a reset, which is how
    /// the kernel closes a socket that still holds bytes the agent did not read (a slow sender's
    /// byte that arrived after the reply).
    func isClosedByTheAgent() -> Bool {
        var byte: UInt8 = 0
        let received = recv(descriptor, &byte, 1, 0)
        return received == 0 || (received < 0 && errno == ECONNRESET)
    }
}
