import ArgumentParser
import Coffer
import CofferAgentWire
import CofferBase
import CofferCommandLine
import CofferSecretServiceProvider
import Dispatch
import Foundation
import Glibc

/// `coffer agent start --secret-service --upstream SOCKET`: the Secret Service in a sandbox,
/// serving on the process's session bus the items of a share bound into it, with no vault, no
/// key and no agent socket of its own (docs/secret-service.md, "Inside a sandbox").
extension CofferAgentCommand {
    /// Serves the share at `socket` until the bus closes, the name is taken away, or a signal.
    func serveUpstream(socket: String) throws {
        guard vault.path == nil else {
            throw CLIError.usage("--vault does not go with --upstream: the share's agent decides which vault is served")
        }
        SystemAllocator.restartIfNeeded()
        SecretVariables.scrub()
        do {
            try Self.checkShare(at: socket)
        } catch let failure as CLIError {
            StartupReport.write(failure.message)
            throw failure
        }
        let stopped = DispatchSemaphore(value: 0)
        let provider = SecretServiceProvider(configuration: .upstream(socket: socket, replace: daemon.replace), keeper: NoVaultKeeper()) { interruption in
            Terminal.printError(interruption == .busClosed
                ? "agent: the session bus closed; the Secret Service stops"
                : "agent: the bus took \(SecretServiceProvider.busName) away; the Secret Service stops")
            stopped.signal()
        }
        do throws(ProviderStartError) {
            try provider.start()
        } catch {
            StartupReport.write("\(error)")
            throw CLIError(message: "\(error)", exitStatus: .unavailable)
        }
        StartupReport.close()
        AgentSignals.on([SIGTERM, SIGINT, SIGHUP]) { stopped.signal() }
        stopped.wait()
        provider.stop()
    }

    /// The socket must be a share's, which answers status with no agent's pid: an agent's own
    /// socket would serve every vault it holds, which `--upstream` is not for.
    static func checkShare(at socket: String) throws {
        let reply: AgentReply
        do throws(AgentSocket.Unreachable) {
            reply = try AgentClient(path: socket, timeout: .seconds(5)).send(.status)
        } catch .noAgent {
            throw CLIError(message: "--upstream \(socket): no share is served there (`coffer agent share --socket` makes one)", exitStatus: .unavailable)
        } catch {
            throw CLIError(message: "--upstream \(socket): \(error)", exitStatus: CLIError(error).exitStatus)
        }
        guard case .agent(let pid, _, _, _) = reply else {
            throw CLIError(message: "--upstream \(socket): it did not answer as an agent's share does", exitStatus: .unavailable)
        }
        guard pid == 0 else {
            throw CLIError.usage("--upstream \(socket) is an agent's own socket; give it the socket of `coffer agent share` instead")
        }
    }
}
