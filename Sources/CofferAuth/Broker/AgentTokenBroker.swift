import Coffer
import Foundation

/// The agent's token broker (docs/agent.md, "The token broker"): an ``OpenIDClient``, or a
/// mobile backend's ``Authorization`` with OAuth, made with one keeps its login in the agent,
/// which refreshes it, so that the app never holds a refresh token once it has handed its login over.
///
/// ```swift
/// let broker = try AgentTokenBroker.login()          // the login vault, through the agent
/// let client = OpenIDClient(provider: provider, clientID: "my-app", broker: broker)
/// let token = try await client.accessToken()         // the agent refreshes when needed
/// let backend = Authorization(backend: mobileBackend, broker: broker, profile: "hub")
/// ```
///
/// An agent that is missing, does not hold the vault, or refuses this program is a typed
/// error (``AuthError/storage(_:)``), never a switch to holding the refresh token here.
public struct AgentTokenBroker: Sendable {
    let store: AgentStore
    /// The programs (executables' real paths) that get tokens of a login this broker hands to
    /// the agent, besides this program, as `coffer set --allow` names them for an item.
    let allowedPrograms: [String]

    /// The broker of the agent that `store` reaches, for the vault it names; a login it hands
    /// over also gives its tokens to `allowedPrograms` (at most 8 absolute paths), without
    /// anyone being asked.
    public init(_ store: AgentStore, allowing allowedPrograms: [String] = []) {
        self.store = store
        self.allowedPrograms = allowedPrograms
    }

    /// What a login this broker hands over names (`allowed`, absent when no one).
    var allowed: [String]? { allowedPrograms.isEmpty ? nil : allowedPrograms }

    /// The broker of the user's agent, for the login vault (`LoginKeychain` in Coffer).
    public static func login(environment: [String: String] = ProcessInfo.processInfo.environment) throws(AuthError) -> AgentTokenBroker {
        do { return AgentTokenBroker(try LoginKeychain.store(environment: environment)) } catch { throw .storage(error) }
    }

    /// A valid access token of the login `profile`, refreshed by the agent when needed;
    /// `refused`: a token a resource refused.
    package func token(profile: String, refused: String?) async throws(AuthError) -> BrokeredToken {
        guard case .token(let token) = try await send(.token(vault: store.vault, profile: profile, refused: refused)) else { throw Self.unexpected }
        return token
    }

    /// ``token(profile:refused:)`` for a client that last had `previous`: `events` hears of a
    /// new token (`refreshed`) and of a login the agent ended (`reauthenticationRequired`, thrown).
    func token(profile: String, refused: String?, after previous: BrokeredToken?, events: SessionEvents) async throws(AuthError) -> BrokeredToken {
        let token: BrokeredToken
        do {
            token = try await self.token(profile: profile, refused: refused)
        } catch .reauthenticationRequired {
            events.send(.reauthenticationRequired)
            throw .reauthenticationRequired
        }
        if let previous, previous.value != token.value { events.send(.refreshed) }
        return token
    }

    /// Hands the new login `login` (the encoding of a ``BrokerableLogin``) to the agent, as profile `profile`.
    func keep(_ login: SecureBytes, profile: String) async throws(AuthError) {
        _ = try await send(.keepLogin(vault: store.vault, profile: profile, login: login))
    }

    /// Ends the login `profile` in the agent: it revokes the refresh token and forgets the
    /// login. Returns whether there was one.
    func end(profile: String) async throws(AuthError) -> Bool {
        guard case .count(let count) = try await send(.endLogin(vault: store.vault, profile: profile)) else { throw Self.unexpected }
        return count > 0
    }

    /// One exchange with the agent, on a thread of its own (the socket blocks).
    private func send(_ request: AgentRequest) async throws(AuthError) -> AgentReply {
        let store = store
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<AgentReply, CofferError>, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(CofferError) -> AgentReply in try store.send(request) })
            }
        }
        switch result {
        case .success(.tokenFailure(let failure)): throw Self.error(for: failure)
        case .success(let reply): return reply
        case .failure(let error): throw .storage(error)
        }
    }

    static func error(for failure: TokenFailure) -> AuthError {
        switch failure {
        case .notLoggedIn: .notAuthenticated
        case .loginRequired: .reauthenticationRequired
        case .providerUnavailable(let reason): .transport(reason: reason)
        case .providerError(let reason): .malformedResponse(reason: reason)
        }
    }

    private static let unexpected = AuthError.storage(.storageUnavailable(reason: "the agent answered another request"))
}
