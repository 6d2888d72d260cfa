import Coffer

extension CofferRoot {
    /// The vault for git's and docker's credential helpers: through the agent when it holds
    /// it, else unlocked here without a terminal (``promptsOnTerminal`` is `false` for them). A
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
