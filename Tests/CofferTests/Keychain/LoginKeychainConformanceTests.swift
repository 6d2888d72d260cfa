import Coffer
import CofferConformance
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// The shared store behaviours, over the login keychain: the agent's vault through
/// ``LoginKeychain`` (one kept connection), a fresh vault per behaviour.
final class LoginKeychainConformanceTests: CredentialStoreConformanceTests {
    private let folder = TemporaryFolder()
    private var agent: RunningAgent?

    override func tearDown() {
        agent?.stop()
        KeptAgentConnection.close()
        super.tearDown()
    }

    override func makeStore() throws -> any CredentialStore {
        let socket = folder.file("run/agent.sock").path
        if agent == nil {
            try FileManager.default.createDirectory(at: folder.file("run"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            agent = try RunningAgent(socket: socket)
        }
        let name = UUID().uuidString
        let vault = folder.file("\(name).vault"), key = folder.file("\(name).key")
        try SecureBytes.random(count: 32).withUnsafeBytes { try Data($0).write(to: key) }
        chmod(key.path, 0o600)
        try Vault.create(at: vault, with: .keyFile(key)).lock()
        try XCTUnwrap(agent).unlock(vault, keyFile: key)
        return try LoginKeychain.store(environment: ["COFFER_AGENT_SOCKET": socket, "COFFER_VAULT": vault.path])
    }

    override var timestampResolution: Duration { .milliseconds(10) }

    /// The login keychain shows every behaviour of the conformance suite; fails naming the behaviour that broke.
    func testConformance() throws { try checkConformance() }
}
