import CofferBase
import Foundation
import HummingbirdAuth

/// What every route shares: the configuration, the issued tokens, the counters and the faults.
final class DevBackendState: Sendable {
    let configuration: DevBackend.Configuration
    let tokens = TokenRegistry()
    let refreshTokens = RefreshTokens()
    let statistics = StatisticsCounter()
    let faults = FaultInjector()
    let openIDFaults = OpenIDFaults()
    /// MobileFirst and MCA clients, with their public keys and security checks' states.
    let clients = RegisteredClients()
    let codes = AuthorizationCodes()
    /// The client assertions and signed codes already used.
    let usedAssertions = UsedAssertions()
    /// Issues the MCA clients' certificates.
    let certificateAuthority = ClientCertificateAuthority()
    /// The OpenID provider's codes, device authorizations and signing key.
    let openIDCodes = OpenIDCodes()
    let deviceGrants = DeviceGrants()
    let signingKeys = SigningKeys()
    private let listeningAt = Guarded<URL?>(nil)

    init(configuration: DevBackend.Configuration) {
        self.configuration = configuration
    }

    var now: Date { configuration.now() }

    /// The base URL, once the server listens.
    var baseURL: URL? {
        get { listeningAt.withLock { $0 } }
        set { listeningAt.withLock { $0 = newValue } }
    }

    /// Whether the caller named this backend. Standard OAuth clients send no backend id, so
    /// `optional` accepts a request without one.
    func acceptsBackendID(_ caller: Caller, optional: Bool = false) -> Bool {
        guard let id = caller.backendID else { return optional }
        return id == configuration.backendID
    }

    /// `name`, if it is a user and `password` is theirs.
    func user(_ name: String, password: String) -> String? {
        guard let expected = configuration.users[name], Secrets.equal(expected, password) else { return nil }
        return name
    }

    /// The user HTTP Basic credentials name, if the password is theirs.
    func user(_ basic: BasicAuthentication?) -> String? {
        basic.flatMap { user($0.username, password: $0.password) }
    }
}
