import FoundationEssentials

extension Vault {
    /// Opens the vault at `url` and unlocks it with the first of `credentials` that opens a
    /// slot; see ``unlock(withFirstOf:)``.
    public static func open(
        at url: URL, unlockWithFirstOf credentials: [VaultCredential], configuration: Configuration = Configuration()
    ) throws(CofferError) -> Vault {
        let vault = try open(at: url, configuration: configuration)
        try vault.unlock(withFirstOf: credentials)
        return vault
    }

    /// Unlocks with the first of `credentials` that opens a slot, trying them in the order given.
    ///
    /// This is how a caller asks for a fallback, by name and in order; Coffer never falls back
    /// on its own. For a vault with a Secret Service slot and a passphrase slot:
    ///
    /// ```swift
    /// try vault.unlock(withFirstOf: [.secretService(), .passphrase(askUser())])
    /// ```
    ///
    /// To ask for the passphrase only when the Secret Service fails, call ``unlock(with:)`` in
    /// turn and catch the errors for which ``CofferError/isCredentialFailure`` is true.
    ///
    /// A credential that fails that way (wrong, or its Secret Service absent, locked or slow)
    /// passes the turn to the next; any other error stops at once. When every credential
    /// fails, the last one's error is thrown. Returns the credential that opened the vault.
    @discardableResult
    public func unlock(withFirstOf credentials: [VaultCredential]) throws(CofferError) -> VaultCredential {
        var lastError = CofferError.invalidArgument(reason: "no credential to unlock the vault with")
        for credential in credentials {
            do {
                try unlock(with: credential)
                return credential
            } catch where error.isCredentialFailure {
                lastError = error
            }
        }
        throw lastError
    }
}

extension CofferError {
    /// Whether the error says only that one credential did not open a vault, so that another
    /// credential might: a wrong passphrase or key, a Secret Service that is unavailable,
    /// locked or slow, or a machine key that could not be had (``MachineKeyFailure``). Errors
    /// about the vault itself (corrupt, unreadable, insecure) are not.
    public var isCredentialFailure: Bool {
        switch self {
        case .wrongPassphrase, .wrongKey, .secretServiceUnavailable, .locked, .timeout, .machineKey: true
        default: false
        }
    }
}
