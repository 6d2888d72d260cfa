import Coffer

/// The root command of a credential helper (git's, docker's): it takes the vault options, reads
/// their descriptors first, and never prompts on the terminal, which belongs to git or docker.
package protocol CredentialHelperRoot: CofferRoot, ReadsDescriptors, UsesAgentForItems {}

extension CredentialHelperRoot {
    package var promptsOnTerminal: Bool { false }
    package var itemRoot: any CofferRoot { self }
    package var vaultOptions: VaultOptions? { vault }

    /// The vault: through the agent when it holds it, else unlocked here without a terminal. A
    /// vault that cannot be had is an error saying so, with the reason and its exit status.
    package func credentialHelperStore() throws -> any CredentialStore {
        guard try storeOptions.selectedBackend() == .vault else {
            throw CLIError.usage("\(Terminal.programName) keeps credentials in a vault, not in the Secret Service (--backend, $COFFER_BACKEND)")
        }
        do {
            return try vaultStore()
        } catch let failure as CommandFailure {
            throw CLIError(message: "cannot use the vault: \(failure.message)", exitStatus: failure.exitStatus)
        }
    }
}
