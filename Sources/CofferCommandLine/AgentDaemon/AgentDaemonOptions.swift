import ArgumentParser
import Coffer
import FoundationEssentials

/// How the agent serves: the options of `coffer agent start`, which hands them to the agent's
/// own executable, `coffer-agent` (docs/agent.md, section 6), as they are.
package struct AgentDaemonOptions: ParsableArguments {
    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Forget a vault unused for this long.", valueName: "duration"))
    package var idleTimeout = DurationArgument(argument: "15m")!

    @Option(name: .customLong("hold"), help: ArgumentHelp(
        "Open this vault at start through its machine slot and hold it until stopped (repeatable).", valueName: "vault"))
    package var hold: [String] = []

    @Flag(name: .customLong("secret-service"), help: ArgumentHelp(
        "Also be the Secret Service (org.freedesktop.secrets) on the session bus, serving the vaults the agent holds: the default vault is the 'login' collection (docs/secret-service.md)."))
    package var secretService = false

    @Flag(help: "With --secret-service: take the name over from another Secret Service (such as gnome-keyring) that allows it.")
    package var replace = false

    @Option(help: ArgumentHelp(
        "The command that asks the person whether a program may use another program's item (under the vault's `confirm` policy) and, with --secret-service, for a collection's passphrase when a client unlocks it (docs/prompts.md; `coffer prompter pinentry` asks through GnuPG's pinentry). Without one, such access is refused and a locked collection stays locked until `coffer unlock`.",
        valueName: "command"))
    package var prompter: String?

    @Option(help: ArgumentHelp(
        "With --secret-service: serve, as the only collection, the items of the share at this socket (`coffer agent share`), holding no vault and no key, and serving no agent socket: for a sandbox (docs/secret-service.md, \"Inside a sandbox\").",
        valueName: "socket"))
    package var upstream: String?

    package init() {}

    package func validate() throws {
        guard secretService || !replace else {
            throw ValidationError("--replace goes with --secret-service")
        }
        guard let upstream else { return }
        guard secretService else { throw ValidationError("--upstream goes with --secret-service") }
        guard hold.isEmpty, prompter == nil else {
            throw ValidationError("--upstream serves a share's items and opens no vault: --hold and --prompter do not go with it")
        }
        guard !upstream.isEmpty else { throw ValidationError("--upstream takes the path of a share's socket") }
    }

    /// The vaults of --hold as absolute paths, every link resolved where the file exists.
    package var heldPaths: [String] {
        hold.map { (try? VaultPaths.real(URL(fileURLWithPath: $0))) ?? URL(fileURLWithPath: $0).path }
    }

    /// These options as `coffer-agent` takes them, --hold paths resolved.
    package var arguments: [String] {
        var arguments = ["--idle-timeout", "\(idleTimeout.seconds)"] + heldPaths.flatMap { ["--hold", $0] }
        if secretService { arguments.append("--secret-service") }
        if replace { arguments.append("--replace") }
        if let prompter { arguments += ["--prompter", prompter] }
        if let upstream { arguments += ["--upstream", URL(fileURLWithPath: upstream).standardizedFileURL.path] }
        return arguments
    }
}

extension HoldFailure {
    /// The line on stderr (after `coffer: `, escaped by ``Terminal/printError(_:)``) for a vault
    /// --hold could not open.
    package var line: String {
        "agent: cannot hold \(path): \(message)"
    }
}
