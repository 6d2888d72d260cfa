import CofferAgentWire
import FoundationEssentials

/// The user's login keychain: the login vault, held unlocked by the user's agent (`pam_coffer.so`
/// unlocks it at login, docs/login-unlock.md), reached over the agent's socket. The agent knows
/// which program each client is, makes it the owner of what it stores, and applies the vault's
/// access policy (docs/keychain-model.md).
///
/// The process keeps one connection to the agent for all its requests,
/// opened again when the agent closes it. ``Keychain/init(service:)`` is the usual way in.
public enum LoginKeychain {
    /// How long finding the agent may take: a live agent answers at once; a stuck one is given
    /// up on after this.
    public static let connectTimeout = Duration.seconds(3)

    /// The login vault through the agent: the agent at `$COFFER_AGENT_SOCKET` (else
    /// `$XDG_RUNTIME_DIR/coffer/agent.sock`), the vault at ``vaultURL(environment:)``.
    ///
    /// Throws ``CofferError/agentUnavailable(reason:)`` within ``connectTimeout`` when no agent
    /// answers; never opens a vault in this process instead. A login vault the agent does not
    /// hold (locked) throws ``CofferError/locked`` at the first item call.
    public static func store(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CofferError) -> AgentStore {
        let socket = try AgentSocket.path(environment: environment)
        do throws(AgentSocket.Unreachable) {
            try KeptAgentConnection.connect(path: socket, timeout: connectTimeout)
        } catch {
            throw unavailable(error, at: socket)
        }
        let vault = try vaultURL(environment: environment)
        let client = AgentClient(path: socket, timeout: AgentClient.itemTimeout)
        // The agent names a vault by its real path; one that does not exist here (a share's client in a
        // sandbox) by the path as given.
        return AgentStore(client: client, vault: (try? FileSecurity.realPath(of: vault.path)) ?? vault.path, keepsConnection: true)
    }

    /// The login vault's file: `$COFFER_VAULT`, else ``Vault/defaultURL(name:)`` (`default`),
    /// as the `coffer` command line finds it.
    public static func vaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CofferError) -> URL {
        if let path = environment["COFFER_VAULT"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return try Vault.defaultURL()
    }

    /// Why the agent at `socket` cannot be used, with how to start one where none runs.
    static func unavailable(_ failure: AgentSocket.Unreachable, at socket: String) -> CofferError {
        switch failure {
        case .noAgent: .agentUnavailable(reason: "no agent runs at \(socket): \(startAdvice)")
        case .stale(let reason): .agentUnavailable(reason: "\(reason); \(startAdvice)")
        case .broken(let reason): .agentUnavailable(reason: "the agent at \(socket) does not answer: \(reason)")
        case .untrusted(let reason): .agentUnavailable(reason: reason)
        }
    }

    private static let startAdvice = "start one with `coffer agent start`, or enable the systemd user units of docs/login-unlock.md"
}
