import ArgumentParser
import Coffer
import Foundation

/// How the agent serves: the options of `coffer agent start`, which hands them to the agent's
/// own executable, `coffer-agent` (docs/agent.md, section 6), as they are.
package struct AgentDaemonOptions: ParsableArguments {
    @Option(name: .customLong("idle-timeout"), help: ArgumentHelp("Forget a vault unused for this long (default: 15m).", valueName: "duration"))
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

    package init() {}

    package func validate() throws {
        guard secretService || !replace else {
            throw ValidationError("--replace goes with --secret-service")
        }
    }

    /// The vaults of --hold as absolute paths, every link resolved where the file exists.
    package var heldPaths: [String] {
        hold.map { (try? VaultPaths.real(URL(fileURLWithPath: $0))) ?? URL(fileURLWithPath: $0).path }
    }

    /// These options as `coffer-agent` takes them, --hold paths resolved.
    package var arguments: [String] {
        ["--idle-timeout", "\(idleTimeout.seconds)"] + heldPaths.flatMap { ["--hold", $0] } + (secretService ? ["--secret-service"] : [])
            + (replace ? ["--replace"] : []) + (prompter.map { ["--prompter", $0] } ?? [])
    }
}

extension HoldFailure {
    /// The line on stderr (after `coffer: `, escaped by ``Terminal/printError(_:)``) for a vault
    /// --hold could not open.
    package var line: String {
        "agent: cannot hold \(path): \(message)"
    }
}
