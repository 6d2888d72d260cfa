import CofferAuth
import CofferDevBackend
import Foundation

/// The client configurations that point CofferAuth's facades at a running dev backend. They
/// live with the client's tests, not in the backend, which knows nothing of the client.
extension DevBackend {
    /// A `MobileBackend` for this server: OAuth with its first client (by name), or HTTP Basic.
    func mobileBackend(oauth: Bool = true, tokenExchange: TokenExchangeForm = .omc, version: String? = nil) -> MobileBackend {
        let client = configuration.clients.min { $0.key < $1.key }
        let authentication: AuthenticationType = if oauth, let client {
            .oauth(tokenEndpoint: tokenEndpoint, clientID: client.key, clientSecret: client.value)
        } else {
            .httpBasic
        }
        return MobileBackend(
            baseURL: baseURL, backendID: configuration.backendID, version: version,
            anonymousKey: client.map { Data("\($0.key):\($0.value)".utf8).base64EncodedString() },
            authentication: authentication, tokenExchange: tokenExchange, revocationEndpoint: revocationEndpoint)
    }

    /// The MobileFirst runtime of this server, for a `ChallengeClient`.
    var mobileFirstServer: ChallengeServer { .mobileFirst(baseURL, runtime: configuration.mobileFirst.runtime) }

    /// The Mobile Client Access application of this server, for a `ChallengeClient`.
    var clientAccessServer: ChallengeServer { .mobileClientAccess(route: baseURL, tenantID: configuration.clientAccess.tenantID) }
}
