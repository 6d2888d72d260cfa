import ArgumentParser
import Coffer
import CofferAgent
import CofferAgentWire
import CofferCommandLine
import CofferSecretServiceProvider
import CofferTokenBroker
import Foundation
import Glibc

/// `coffer-agent`: the agent itself, which `coffer agent start` runs (in the background, or in
/// its own place with `--foreground`; docs/agent.md, section 6). An executable of its own, so
/// that `coffer` links neither the token broker's networking nor the Secret Service's GDBus.
@main
struct CofferAgentCommand: ParsableCommand, CofferRoot {
    static let configuration = CommandConfiguration(
        commandName: "coffer-agent",
        abstract: "The Coffer agent: serves the vaults it holds until stopped. `coffer agent start` runs it.",
        discussion: "Its options are those of `coffer agent start`; docs/agent.md has the protocol.",
        version: CofferVersion.current)

    @OptionGroup var vault: VaultOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var daemon: AgentDaemonOptions

    static func main() async {
        await CommandLineTool.run(Self.self)
    }

    /// Runs the agent: the socket systemd passes (LISTEN_FDS), else one of its own; with
    /// `--secret-service`, the Secret Service too, on the same held vaults. When the name
    /// cannot be taken, the agent does not start.
    func run() throws {
        if let upstream = daemon.upstream { return try serveUpstream(socket: upstream) }
        let path = try AgentSocket.path()
        if daemon.secretService { SystemAllocator.restartIfNeeded() }
        SecretVariables.scrub()
        OpenFileLimit.raiseToHardLimit()
        let environment = ProcessInfo.processInfo.environment
        let activated = environment["LISTEN_PID"].flatMap(Int32.init) == getpid() && environment["LISTEN_FDS"] == "1"
        let listener = activated ? Int32(3) : try AgentSocket.listen(path: path)
        if activated { _ = fcntl(listener, F_SETFD, FD_CLOEXEC) }
        let server = try AgentServer(
            listener: listener, idleTimeout: daemon.idleTimeout.duration, prompter: daemon.prompter.map { PrompterCommand(command: $0) },
            tokenBroker: LoginTokenBroker(), helperRules: HelperRules())
        var provider: SecretServiceProvider?
        if daemon.secretService {
            do {
                provider = try startSecretService(for: server)
            } catch {
                close(listener)
                if !activated { unlink(path) }
                throw error
            }
        }
        StartupReport.close()
        AgentSignals.stop(server, onSignals: [SIGTERM, SIGINT, SIGHUP])
        holdVaults(in: server)
        server.run()
        provider?.stop()
        if !activated { unlink(path) }
    }

    /// Opens each --hold vault with the machine's own credentials and hands it to `server`;
    /// a vault that does not open is reported on stderr and kept for status.
    private func holdVaults(in server: AgentServer) {
        for path in daemon.heldPaths {
            do {
                let vault = try Vault.open(at: URL(fileURLWithPath: path))
                try unlockWithoutPerson(vault)
                server.holdUntilStopped(vault, at: path)
            } catch {
                let message = (error as? any CommandFailure)?.message ?? "\(error)"
                server.reportHoldFailure(message, at: path)
                Terminal.printError(HoldFailure(path: path, message: message).line)
            }
        }
    }

    /// The Secret Service on the agent's own held vaults. When it cannot start (the name
    /// taken), the agent does not start either, and says why (on the startup report too).
    /// When its bus closes, the vaults it unlocked for the bus's clients are forgotten, and
    /// the agent stops, unless it holds vaults for its socket's clients: then it goes on
    /// without the bus, and says so in status.
    private func startSecretService(for server: AgentServer) throws -> SecretServiceProvider {
        let configuration = SecretServiceProvider.Configuration(
            loginVault: try vault.url(), replace: daemon.replace, prompter: daemon.prompter.map { PrompterCommand(command: $0) })
        let handler = server.handler
        let provider = SecretServiceProvider(configuration: configuration, keeper: handler.vaults) { interruption in
            switch interruption {
            case .busClosed:
                handler.vaults.forgetFrontEndVaults()
                guard handler.vaults.holdsVaultsForSocketClients else {
                    Terminal.printError("agent: the session bus closed; the agent stops")
                    return server.stop()
                }
                handler.report(.busClosed)
                Terminal.printError("agent: the session bus closed; the agent goes on for the vaults it holds, serving its socket alone")
            case .nameLost:
                handler.report(.nameLost)
                Terminal.printError("agent: the bus took \(SecretServiceProvider.busName) away; the agent serves its socket alone")
            }
        }
        do throws(ProviderStartError) {
            try provider.start()
        } catch {
            StartupReport.write("\(error)")
            throw CLIError(message: "\(error)", exitStatus: .unavailable)
        }
        handler.report(.serving)
        return provider
    }
}
