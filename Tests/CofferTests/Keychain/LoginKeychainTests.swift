import Coffer
import CofferAgentWire
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// `Keychain(service:)`: the login keychain through the user's agent, with no unlock argument.
final class LoginKeychainTests: XCTestCase {
    let folder = TemporaryFolder()
    var agentFolder: URL { folder.file("run") }
    var socket: String { agentFolder.appendingPathComponent("agent.sock").path }
    var vaultURL: URL { folder.file("login.vault") }
    var keyFile: URL { folder.file("login.key") }
    var environment: [String: String] { ["COFFER_AGENT_SOCKET": socket, "COFFER_VAULT": vaultURL.path] }
    private var agent: RunningAgent?

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: agentFolder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try SecureBytes.random(count: 32).withUnsafeBytes { try Data($0).write(to: keyFile) }
        chmod(keyFile.path, 0o600)
        try Vault.create(at: vaultURL, with: .keyFile(keyFile)).lock()
    }

    override func tearDown() {
        agent?.stop()
        KeptAgentConnection.close()
        super.tearDown()
    }

    private func startAgent(unlocking: Bool = true) throws {
        let started = try RunningAgent(socket: socket)
        agent = started
        if unlocking { try started.unlock(vaultURL, keyFile: keyFile) }
    }

    private func keychain(_ service: String = "com.example.app") throws(CofferError) -> Keychain {
        Keychain(service: service, store: try LoginKeychain.store(environment: environment))
    }

    /// The one line stores and reads through the agent: the item is in the login vault, owned by
    /// this program (the test's executable), which the agent identified, and no vault was
    /// opened in this process.
    func testTheOneLineKeychainStoresInTheLoginVaultThroughTheAgent() throws {
        try startAgent()
        try withEnvironment(environment) {
            let keychain = try Keychain(service: "com.example.app")
            try keychain.set("s3cret", for: "ada")
            XCTAssertEqual(try keychain.string(for: "ada"), "s3cret")
            XCTAssertNil(try keychain.string(for: "bob"), "an absent item reads as nil")
            XCTAssertTrue(KeptAgentConnection.isKept(for: socket), "the requests went over one kept connection")
        }
        let vault = try Vault.open(at: vaultURL, unlock: .keyFile(keyFile))
        XCTAssertEqual(try vault.secret(for: .genericPassword(service: "com.example.app", account: "ada")), Data("s3cret".utf8))
        let owner = try XCTUnwrap(try vault.access(for: .genericPassword(service: "com.example.app", account: "ada"))?.owner)
        XCTAssertEqual(owner.executablePath, "/proc/self/exe".realPathBytes, "the agent made this program the owner")
    }

    /// With no agent, the one line throws `agentUnavailable` at once, saying how to start one;
    /// nothing is opened in process (the vault file is untouched).
    func testWithNoAgentItThrowsAgentUnavailableSayingHowToStartOne() throws {
        let before = try Data(contentsOf: vaultURL)
        try withEnvironment(environment) {
            XCTAssertThrowsError(try Keychain(service: "com.example.app")) { error in
                guard case .agentUnavailable(let reason) = error as? CofferError else { return XCTFail("\(error)") }
                XCTAssertTrue(reason.contains("coffer agent start"), reason)
                XCTAssertTrue(reason.contains(socket), reason)
            }
        }
        XCTAssertEqual(try Data(contentsOf: vaultURL), before)
    }

    /// An agent that accepts nothing (stuck) is given up on after `LoginKeychain.connectTimeout`,
    /// with `agentUnavailable`, instead of hanging.
    func testAStuckAgentIsGivenUpOnInBoundedTime() throws {
        let listener = try AgentSocket.listen(path: socket)
        defer { close(listener) }
        // Fill the backlog so that a connect must wait, as on an agent that never accepts.
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<8 { if let descriptor = try? AgentSocket.connect(path: socket, timeout: .milliseconds(100)) { held.append(descriptor) } }
        let started = ContinuousClock.now
        XCTAssertThrowsError(try keychain()) { error in
            guard case .agentUnavailable = error as? CofferError else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(ContinuousClock.now - started, LoginKeychain.connectTimeout * 3 * TestTiming.scale)
    }

    /// An agent that runs but does not hold the login vault: item calls throw `locked`, never
    /// read as absent.
    func testALoginVaultTheAgentDoesNotHoldIsLocked() throws {
        try startAgent(unlocking: false)
        let keychain = try keychain()
        XCTAssertThrowsError(try keychain.string(for: "ada")) { XCTAssertEqual($0 as? CofferError, .locked) }
        XCTAssertThrowsError(try keychain.set("x", for: "ada")) { XCTAssertEqual($0 as? CofferError, .locked) }
    }

    /// The fallback named by the app is used when no agent runs, and only then: with an agent
    /// that holds nothing, the keychain is the login keychain (and throws `locked`).
    func testTheNamedFallbackIsUsedOnlyWithoutAnAgent() throws {
        let own = folder.file("own.vault")
        let fallback = Keychain.Fallback.vault(at: own, unlock: .key(.random(count: 32)))
        try withEnvironment(environment) {
            let alone = try Keychain(service: "com.example.app", fallback: fallback)
            XCTAssertTrue(alone.store is Vault, "no agent: the app's own vault")
            try alone.set("kept", for: "ada")
            XCTAssertTrue(FileManager.default.fileExists(atPath: own.path))
            try startAgent(unlocking: false)
            let login = try Keychain(service: "com.example.app", fallback: fallback)
            XCTAssertTrue(login.store is AgentStore, "an agent runs: the login keychain, locked or not")
            XCTAssertThrowsError(try login.string(for: "ada")) { XCTAssertEqual($0 as? CofferError, .locked) }
        }
    }

    /// The kept connection is opened again when the agent closes it: a keychain made before an
    /// agent restarts works after it (and throws `agentUnavailable` while none runs).
    func testTheKeychainReconnectsAfterTheAgentRestarts() throws {
        try startAgent()
        let keychain = try keychain()
        try keychain.set("before", for: "ada")
        agent?.stop()
        XCTAssertThrowsError(try keychain.string(for: "ada")) { error in
            guard case .agentUnavailable = error as? CofferError else { return XCTFail("\(error)") }
        }
        try startAgent()
        XCTAssertEqual(try keychain.string(for: "ada"), "before")
        XCTAssertTrue(KeptAgentConnection.isKept(for: socket))
    }

    /// Runs `body` with `variables` set in this process's environment, then restores them.
    private func withEnvironment(_ variables: [String: String], _ body: () throws -> Void) throws {
        let saved = variables.keys.map { ($0, ProcessInfo.processInfo.environment[$0]) }
        for (name, value) in variables { setenv(name, value, 1) }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        try body()
    }
}
