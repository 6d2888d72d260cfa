import Coffer
import CofferAuth
import CofferCommandLine
import Foundation
import Logging

/// The CLI's login state in the store (the vault unless `--backend` says otherwise): the backend it logged in to (service `coffer.auth`,
/// account `backend`, client secret included) and the facade's session (account `session`).
struct AuthProfile {
    static let service = "coffer.auth"
    static let backendAccount = "backend"

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

    /// A facade on `backend` that keeps its session in this store.
    func authorization(for backend: MobileBackend) -> Authorization {
        Authorization(backend: backend, store: keychain.store, configuration: configuration)
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
