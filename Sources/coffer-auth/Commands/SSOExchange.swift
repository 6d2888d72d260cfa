import ArgumentParser
import CofferAuth
import CofferCommandLine

struct SSOExchange: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = ForwardedCommands.ssoExchange.configuration(
        discussion: """
            The backend is the one given with --backend-url/--backend-id, else the one of the \
            last login. With --store, the exchanged token and the backend are stored in the \
            vault, and later commands are authorized until the token expires; without it, the \
            exchange is only checked.
            """)

    @ParentCommand var root: CofferAuthCommand
    @OptionGroup var backend: MobileBackendOptions

    @Flag(help: "Store the exchanged token in the vault.")
    var store = false

    var vaultOptions: VaultOptions? { root.vault }
    var ownDescriptors: [Int32] { [backend.clientSecretFD].compactMap { $0 } }

    func run() async throws {
        let profile = AuthProfile(store: try root.store(), network: root.network)
        let mobileBackend = backend.isGiven ? try backend.mobileBackend(network: root.network) : try profile.requireBackend()
        let token = try SecretInput.fromStdin(prompt: "Third-party token: ", what: "third-party token")
        let auth = profile.authorization(for: mobileBackend)
        try await auth.authenticateSSOTokenExchange(token, storeAccessToken: store)
        if store { try profile.save(mobileBackend) }
        try StandardStreams.printLine("exchanged" + SessionText.expiry(await auth.tokenExpiresAt) + (store ? "; stored in the vault" : "; not stored"))
    }
}
