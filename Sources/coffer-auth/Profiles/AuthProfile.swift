import Coffer
import CofferAuth
import CofferCommandLine
import Foundation
import Logging

/// The CLI's login state in the store (the vault unless `--backend` says otherwise): the backend it logged in to (service `coffer.auth`,
/// account `backend`, client secret included) and the facade's session (account `session`); or,
/// when the agent held the vault at login, the agent's profile that holds the OAuth session
/// (account `backend profile`).
struct AuthProfile {
    static let service = "coffer.auth"
    static let backendAccount = "backend"
    static let brokeredProfileAccount = "backend profile"

    let keychain: Keychain
    /// Whether --insecure-http allows plain HTTP to hosts that are not loopback.
    let allowsInsecureHTTP: Bool

    /// The profile in `store`: the vault, or the Secret Service with `--backend secret-service`.
    init(store: any CredentialStore, network: NetworkOptions) {
        keychain = Keychain(service: Self.service, store: store)
        allowsInsecureHTTP = network.insecureHTTP
    }

    /// The backend of the last login, or `nil` when not logged in.
    func backend() throws -> MobileBackend? {
        guard let data = try keychain.data(for: Self.backendAccount) else { return nil }
        guard let backend = try? JSONDecoder().decode(MobileBackend.self, from: data) else {
            throw CLIError(message: "the stored backend configuration is unreadable; run `coffer logout`", exitStatus: .dataError)
        }
        return backend
    }

    /// The backend of the last login; throws ``AuthError/notAuthenticated`` when there is none.
    func requireBackend() throws -> MobileBackend {
        guard let backend = try backend() else { throw AuthError.notAuthenticated }
        return backend
    }

    func save(_ backend: MobileBackend) throws {
        try keychain.set(try JSONEncoder().encode(backend), for: Self.backendAccount, options: ItemOptions(label: "coffer login backend"))
    }

    func removeBackend() throws {
        try keychain.remove(Self.backendAccount)
    }

    /// The agent's profile that holds the OAuth login of the stored backend (docs/agent.md,
    /// "The token broker"), or `nil` when this store keeps its session (account `session`).
    func brokeredProfile() throws -> String? {
        try keychain.data(for: Self.brokeredProfileAccount).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Remembers which agent profile holds the backend's login, or that none does.
    func saveBrokeredProfile(_ name: String?) throws {
        guard let name else {
            try keychain.remove(Self.brokeredProfileAccount)
            return
        }
        try keychain.set(Data(name.utf8), for: Self.brokeredProfileAccount, options: ItemOptions(label: "coffer login backend profile"))
    }

    /// A facade on `backend`: with `profile`, the login the agent's token broker holds as that
    /// profile (asked through the agent when one holds the vault, else on the vault itself,
    /// where the agent keeps it); without, one that keeps its session in this store.
    func authorization(for backend: MobileBackend, brokeredAs profile: String? = nil) -> Authorization {
        guard let profile else { return Authorization(backend: backend, store: keychain.store, configuration: configuration) }
        if let agent = CofferAuthCommand.agent(behind: keychain.store) {
            return Authorization(backend: backend, broker: .commandLine(agent), profile: profile, configuration: configuration)
        }
        return Authorization(
            backend: backend, store: keychain.store, sessionItem: BrokeredBackendLogin.sessionID(profile: profile), configuration: configuration)
    }

    /// The facade of the stored backend login, wherever its session is.
    func storedAuthorization(for backend: MobileBackend) throws -> Authorization {
        authorization(for: backend, brokeredAs: try brokeredProfile())
    }

    /// The policies of every client the CLI makes.
    var configuration: ClientConfiguration {
        ClientConfiguration(allowInsecureHTTP: allowsInsecureHTTP, logger: Self.logger)
    }

    /// The policies of every client the CLI makes, with --insecure-http as `network` says.
    static func configuration(network: NetworkOptions) -> ClientConfiguration {
        ClientConfiguration(allowInsecureHTTP: network.insecureHTTP, logger: logger)
    }

    /// Warnings and errors on stderr; stdout carries only the command's output.
    static let logger: Logger = {
        var logger = Logger(label: "coffer.auth") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return logger
    }()
}
