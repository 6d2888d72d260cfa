import ArgumentParser
import Coffer
import CofferAgent
import CofferAgentWire
import FoundationEssentials

/// A root command of Coffer's tools: the vault and store options every subcommand shares.
package protocol CofferRoot {
    var vault: VaultOptions { get }
    var storeOptions: StoreOptions { get }
    /// Whether a missing passphrase may be asked for on the terminal (`false` for the
    /// credential helpers, whose terminal belongs to git or docker).
    var promptsOnTerminal: Bool { get }
}

extension CofferRoot {
    package var promptsOnTerminal: Bool { true }

    /// The store the item commands (get, set, delete, list) use.
    package func store() throws -> any CredentialStore {
        switch try storeOptions.selectedBackend() {
        case .vault: try vaultStore()
        case .secretService: SecretServiceStore(configuration: storeOptions.secretService)
        }
    }

    /// The vault, through the agent when it holds it unlocked, else opened and unlocked here.
    /// Through the agent, a person at a terminal may confirm with the vault's passphrase what
    /// the vault's access policy keeps this program from (``TerminalConfirmedStore``).
    package func vaultStore() throws -> any CredentialStore {
        guard let agent = try agentStore() else { return try openVault() }
        return promptsOnTerminal ? TerminalConfirmedStore(agent: agent, vault: try vault.url()) : agent
    }

    /// The agent behind `store` (a store ``vaultStore()`` made), when the vault is used through one.
    package static func agent(behind store: any CredentialStore) -> AgentStore? {
        (store as? AgentStore) ?? (store as? TerminalConfirmedStore)?.agent
    }

    /// The agent's socket, when the vault would be used through an agent: not with --no-agent,
    /// and only when the socket file exists.
    package var agentSocket: String? {
        guard !storeOptions.noAgent, let socket = try? AgentSocket.path(), FileSecurityProbe.exists(socket) else { return nil }
        return socket
    }

    /// The vault through the agent, when one runs and holds it unlocked (unless --no-agent);
    /// `nil` otherwise. A socket nobody answers on (a killed agent) is reported, never waited on.
    /// A vault file that does not exist here is asked about by its absolute path: a share's
    /// socket serves its own vault whatever the path (a sandbox or another host has no vault
    /// file), and the user's agent answers that it does not hold it.
    package func agentStore() throws -> AgentStore? {
        guard let socket = agentSocket, let url = try? vault.url() else { return nil }
        let path = (try? VaultPaths.real(url)) ?? url.standardizedFileURL.path
        do {
            return try AgentClient(path: socket, timeout: AgentClient.itemTimeout).store(for: path)
        } catch .noAgent {
            return nil
        } catch {
            Terminal.printError("note: \(error); unlocking the vault here instead")
            return nil
        }
    }

    /// Opens the vault and unlocks it as ``unlock(_:)`` says.
    package func openVault(configuration: Vault.Configuration = Vault.Configuration()) throws -> Vault {
        let opened = try Vault.open(at: try vault.url(), configuration: configuration)
        try unlock(opened)
        return opened
    }

    /// Unlocks `vault` with the methods of --unlock (or $COFFER_UNLOCK) in order, falling to the
    /// next only when a credential fails as a credential (``CofferError/isCredentialFailure``).
    /// A passphrase is read, or prompted for, only when its turn comes. Without --unlock: the
    /// key file if one is named, else a passphrase if --passphrase-fd or $COFFER_PASSPHRASE
    /// gives one, else the service credential if $CREDENTIALS_DIRECTORY holds it, else the
    /// machine slots the vault has (Secret Service, then systemd-creds), else a passphrase prompt.
    /// Returns the credential that opened the vault.
    @discardableResult
    package func unlock(_ vault: Vault) throws -> VaultCredential {
        try unlock(vault, methods: try storeOptions.namedUnlockMethods() ?? defaultUnlockMethods(for: vault))
    }

    /// Unlocks `vault` with the machine's own credentials, never a person's: the methods of
    /// --unlock when given, else the service credential if $CREDENTIALS_DIRECTORY holds it and
    /// the vault's systemd-creds slots. For `agent start --hold`.
    @discardableResult
    package func unlockWithoutPerson(_ vault: Vault) throws -> VaultCredential {
        var methods = try storeOptions.namedUnlockMethods() ?? []
        if methods.isEmpty {
            if storeOptions.hasServiceCredential { methods.append(.credential) }
            if try vault.keySlots().contains(where: \.isSystemdCredential) { methods.append(.systemdCreds) }
        }
        guard !methods.isEmpty else {
            throw CLIError.noCredential("the vault has no systemd-creds slot and no service credential is given; name a method with --unlock")
        }
        return try unlock(vault, methods: methods)
    }

    private func unlock(_ vault: Vault, methods: [StoreOptions.UnlockMethod]) throws -> VaultCredential {
        var lastError: Error = CLIError.usage("--unlock names no method")
        for method in methods {
            do {
                let credential = try credential(for: method)
                try vault.unlock(with: credential)
                return credential
            } catch let error as CofferError where error.isCredentialFailure {
                lastError = error
            }
        }
        throw lastError
    }

    private func defaultUnlockMethods(for vault: Vault) throws -> [StoreOptions.UnlockMethod] {
        if self.vault.keyFileURL != nil { return [.keyfile] }
        if self.vault.passphraseFD != nil || storeOptions.environment["COFFER_PASSPHRASE"] != nil { return [.passphrase] }
        if storeOptions.hasServiceCredential { return [.credential] }
        let slots = try vault.keySlots()
        let machineMethods: [StoreOptions.UnlockMethod] =
            (slots.contains { $0.kind == .secretService } ? [.secretService] : [])
            + (slots.contains(where: \.isSystemdCredential) ? [.systemdCreds] : [])
        return machineMethods.isEmpty ? [.passphrase] : machineMethods
    }

    private func credential(for method: StoreOptions.UnlockMethod) throws -> VaultCredential {
        switch method {
        case .secretService:
            return .secretService(storeOptions.secretService)
        case .systemdCreds:
            return .systemdCredential(storeOptions.systemdCredentials)
        case .credential:
            return storeOptions.serviceCredential
        case .keyfile:
            guard let url = vault.keyFileURL else { throw CLIError.usage("--unlock keyfile needs --keyfile or $COFFER_KEYFILE") }
            return .keyFile(url)
        case .passphrase:
            return try Passphrase.credential(
                fd: vault.passphraseFD, environmentName: "COFFER_PASSPHRASE", prompt: promptsOnTerminal ? "Passphrase: " : nil)
        }
    }
}
