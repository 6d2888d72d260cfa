import Coffer
@testable import CofferAuth
import CofferTestSupport
import Foundation
import Glibc

/// A real agent (the built `coffer agent start`) on a socket in a private folder, holding a new
/// vault opened with a key file: what the token broker's library tests log in to.
final class AgentHeldVault {
    let folder: TemporaryFolder
    let agent: RunningAgent
    var vault: URL { folder.file("login.vault") }
    var key: URL { folder.file("login.key") }
    var socket: String { folder.file("run/agent.sock").path }

    init() throws {
        let folder = TemporaryFolder()
        self.folder = folder
        try FileManager.default.createDirectory(at: folder.file("run"), withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try SecureBytes.random(count: 32).withUnsafeBytes { try Data($0).write(to: folder.file("login.key")) }
        chmod(folder.file("login.key").path, 0o600)
        try Vault.create(at: folder.file("login.vault"), with: .keyFile(folder.file("login.key"))).lock()
        agent = try RunningAgent(socket: folder.file("run/agent.sock").path)
        try agent.unlock(folder.file("login.vault"), keyFile: folder.file("login.key"))
    }

    /// The broker of this agent, for the vault.
    func broker() throws -> AgentTokenBroker {
        try AgentTokenBroker.login(environment: ["COFFER_AGENT_SOCKET": socket, "COFFER_VAULT": vault.path])
    }

    /// A broker whose agent is missing: nothing listens at its socket.
    var missingBroker: AgentTokenBroker {
        AgentTokenBroker(AgentStore(client: AgentClient(path: folder.file("run/none.sock").path), vault: vault.path))
    }

    /// The mobile backend session the vault holds for `profile`, read directly as the person can.
    func backendSession(profile: String) throws -> StoredSession? {
        let opened = try Vault.open(at: vault, unlock: .keyFile(key))
        defer { opened.lock() }
        return try opened.secret(for: BrokeredBackendLogin.sessionID(profile: profile)).map { try JSONDecoder.sessions.decode(StoredSession.self, from: $0) }
    }

    func stop() {
        agent.stop()
        KeptAgentConnection.close()
    }
}
