import ArgumentParser
import Coffer
import CofferAgent
import CofferAgentWire
import CofferBase
import CofferCommandLine
import FoundationEssentials

struct UnlockCommand: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the vault once and hand it to the agent, so later commands need no credential.",
        discussion: """
            The credential comes as usual: the key file (--keyfile, $COFFER_KEYFILE), else the passphrase \
            (--passphrase-fd, $COFFER_PASSPHRASE, or the terminal). The agent unlocks the vault with it \
            and forgets the credential; it forgets the vault after --for, after its idle timeout, on \
            `coffer lock`, or when the vault key is rotated elsewhere.
            """)

    @ParentCommand var root: CofferCommand

    @Option(name: .customLong("for"), help: ArgumentHelp("How long the agent keeps the vault unlocked (at most 7d).", valueName: "duration"))
    var lifetime = DurationArgument(argument: "1h")!

    var vaultOptions: VaultOptions? { root.vault }

    /// Connects once, after the credential is read: no connection waits on the prompt, and the
    /// agent's identity is checked just before the credential goes to it.
    func run() throws {
        guard lifetime.seconds <= Int(AgentRequest.maxLifetime) else { throw CLIError.usage("--for takes at most 7 days") }
        let path = try VaultPaths.real(try root.vault.url())
        let socket = try AgentCommand.socketPath()
        let noAgent = CLIError(message: "no agent runs: start one with `coffer agent start`", exitStatus: .unavailable)
        guard FileSecurityProbe.exists(socket) else { throw noAgent }
        let credential = try AgentCredential.read(from: root.vault)
        let reply: AgentReply
        do throws(AgentSocket.Unreachable) {
            reply = try AgentClient(path: socket).send(.unlock(vault: path, credential: credential, lifetime: UInt32(lifetime.seconds)))
        } catch .noAgent, .stale {
            throw noAgent
        } catch {
            throw CLIError(error)
        }
        if case .failure(let error) = reply { throw error }
        let until = Date().addingTimeInterval(TimeInterval(lifetime.seconds))
        try StandardStreams.printLine("the agent holds \(TerminalText.escaped(path)) unlocked until \(until.formatted(.iso8601))")
    }
}

struct LockCommand: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "lock", abstract: "Make the agent forget the vault (or, with --all, every vault); its key is zeroed.")

    @ParentCommand var root: CofferCommand

    @Flag(help: "Forget every vault the agent holds.")
    var all = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let path = all ? nil : try VaultPaths.real(try root.vault.url())
        let client = AgentClient(path: try AgentCommand.socketPath())
        let reply: AgentReply
        do throws(AgentSocket.Unreachable) {
            reply = try client.send(.lock(vault: path))
        } catch .noAgent, .stale {
            return try StandardStreams.printLine("no agent runs; nothing to lock")
        } catch {
            throw CLIError(error)
        }
        // A share's socket refuses.
        if case .failure(let error) = reply { throw error }
        try StandardStreams.printLine(all ? "the agent holds no vault now" : "the agent no longer holds \(TerminalText.escaped(path ?? ""))")
    }
}
