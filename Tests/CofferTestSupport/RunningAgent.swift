import Coffer
import Foundation
import Glibc
import XCTest

/// The built `coffer agent start --foreground`, on a socket in a private folder of its own, as a
/// child of the test; stopped by ``stop()`` or when the test's folder is swept.
public final class RunningAgent {
    /// The agent's socket, for `$COFFER_AGENT_SOCKET`.
    public let socket: String
    public let process: ChildProcess

    /// Starts the agent with `arguments` after `agent start --foreground`, and waits until it
    /// answers a ping.
    public init(socket: String, arguments: [String] = [], environment: [String: String?] = [:]) throws {
        self.socket = socket
        var variables: [String: String?] = ["COFFER_AGENT_SOCKET": socket, "COFFER_VAULT": nil, "COFFER_PASSPHRASE": nil, "COFFER_KEYFILE": nil]
        for (name, value) in environment { variables[name] = value }
        process = try ChildProcess.start(
            BuiltProducts.executable("coffer").path, ["agent", "start", "--foreground"] + arguments, environment: variables)
        let client = AgentClient(path: socket, timeout: .seconds(5))
        for _ in 0..<1000 {
            if case .agent? = try? client.send(.ping) { return }
            usleep(10_000)
        }
        _ = process.stop()
        throw MissingPrerequisite.error("the agent did not answer at \(socket)")
    }

    /// Has the agent hold the vault at `vault` (opened with the key in `keyFile`) for an hour.
    public func unlock(_ vault: URL, keyFile: URL) throws {
        let reply = try AgentClient(path: socket).send(.unlock(vault: vault.resolvingSymlinksInPath().path, credential: .keyFile(keyFile.path), lifetime: 3600))
        guard case .done = reply else { throw CofferError.storageUnavailable(reason: "the agent did not unlock the vault: \(reply)") }
    }

    /// Stops the agent and waits for it.
    public func stop() {
        _ = process.stop()
    }
}
