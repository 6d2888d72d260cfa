import CofferAuth
import Foundation

/// What every route shares: the configuration, the issued tokens, the counters and the faults.
final class DevBackendState: Sendable {
    let configuration: DevBackend.Configuration
    let tokens = TokenRegistry()
    let statistics = StatisticsCounter()
    let faults = FaultInjector()
    /// MobileFirst and MCA clients, with their security checks' states.
    let clients = RegisteredClients()
    let codes = AuthorizationCodes()

    init(configuration: DevBackend.Configuration) {
        self.configuration = configuration
    }

    var now: Date { configuration.now() }

    /// Whether the caller named this backend. Standard OAuth clients send no backend id, so
    /// `optional` accepts a request without one.
    func acceptsBackendID(_ caller: Caller, optional: Bool = false) -> Bool {
        guard let id = caller.backendID else { return optional }
        return id == configuration.backendID
    }

    /// The user, if `credentials` name one with the right password.
    func user(_ credentials: BasicCredentials?) -> String? {
        guard let credentials, let expected = configuration.users[credentials.user],
              Secrets.equal(expected, credentials.password)
        else { return nil }
        return credentials.user
    }
}
