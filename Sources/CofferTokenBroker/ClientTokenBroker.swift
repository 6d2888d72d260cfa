import Coffer
import CofferAgent
import CofferAuth
import CofferBase
import Dispatch

/// The agent's broker of one kind of login (docs/agent.md, "The token broker"): for each
/// brokered login, one client (``BrokerableLogin/client(_:profile:in:configuration:)``) on the
/// held vault itself, so that the refresh token is read, spent and replaced only in the agent's
/// process. One client per vault and profile makes the refresh single-flight for every caller;
/// it stores the rotated refresh token durably before it returns, so no caller is answered
/// before the rotation is safe. ``LoginTokenBroker`` picks the kind of each profile.
package final class ClientTokenBroker<Login: BrokerableLogin>: LoginKindBroker {
    private let configuration: ClientConfiguration
    private let clients = Guarded<[Key: Held]>([:])
    /// When a refusal last made each login refresh.
    private let refreshedOnRefusal = Guarded<[Key: ContinuousClock.Instant]>([:])

    /// The least time between two refusals that make a login refresh: a program (or a sandbox,
    /// through a share) refusing every token it gets would otherwise have the agent refresh at
    /// the provider as fast as it asks, spending the provider's limits on the user's login.
    package static var refusalInterval: Duration { .seconds(10) }

    private struct Key: Hashable {
        let path: String
        let profile: String
    }

    /// A client, for the vault (as unlocked now) and the settings it was made with.
    private struct Held {
        let vault: ObjectIdentifier
        let settings: Login.Settings
        let client: any BrokeredClient
    }

    /// A broker whose clients follow `configuration` (timeouts, leeway, HTTP policy).
    package init(configuration: ClientConfiguration = ClientConfiguration()) {
        self.configuration = configuration
    }

    package func freshToken(profile: String, in vault: Vault, at path: String) -> BrokeredToken? {
        guard let client = try? client(profile: profile, in: vault, at: path) else { return nil }
        return Self.wait { await client.freshToken() }
    }

    package func token(profile: String, refused: String?, in vault: Vault, at path: String) throws(CofferError) -> Result<BrokeredToken, TokenFailure> {
        guard let client = try client(profile: profile, in: vault, at: path) else { return .failure(.notLoggedIn) }
        if let refused, let current = Self.wait({ await client.freshToken() }) {
            // A refusal of a token that is no longer the current one: the current one, no refresh.
            guard current.value == refused else { return .success(current) }
            if refusedTooSoon(Key(path: path, profile: profile)) {
                return .failure(.providerUnavailable("a token of this login was refused less than \(Self.refusalInterval) ago; ask again later"))
            }
        }
        let result = Self.wait { () async -> Result<BrokeredToken, AuthError> in
            do throws(AuthError) { return .success(try await client.brokeredToken(refusing: refused)) } catch { return .failure(error) }
        }
        switch result {
        case .success(let token): return .success(token)
        case .failure(.storage(let error)): throw error
        case .failure(let error): return .failure(Self.failure(for: error))
        }
    }

    package func keep(_ login: SecureBytes, profile: String, in vault: Vault, at path: String, owner: Program?) throws(CofferError) {
        try keep(login, profile: profile, in: vault, at: path, owner: owner, removing: [])
    }

    func keep(_ login: SecureBytes, profile: String, in vault: Vault, at path: String, owner: Program?, removing: [ItemID]) throws(CofferError) {
        try holdingSessionLock(profile: profile, in: vault) { () throws(CofferError) in
            try Login.keep(login, profile: profile, in: vault, owner: owner, removing: removing)
        }
        forget(profile: profile, at: path)
    }

    /// Runs `body` holding the session lock of this kind's login `profile` in `vault`, if any
    /// (``BrokerableLogin/holdingSessionLock(profile:in:configuration:_:)``): its refresh in
    /// flight stores the rotated session before `body` replaces or removes it.
    func holdingSessionLock<Value>(profile: String, in vault: Vault, _ body: () throws(CofferError) -> Value) throws(CofferError) -> Value {
        try Login.holdingSessionLock(profile: profile, in: vault, configuration: configuration, body)
    }

    package func end(profile: String, in vault: Vault, at path: String) throws(CofferError) -> Result<Int, TokenFailure> {
        guard let client = try client(profile: profile, in: vault, at: path) else { return .success(0) }
        // The session is removed before the provider is asked to revoke, so a revocation that
        // fails leaves nothing behind here.
        let result = Self.wait { () async -> AuthError? in
            do throws(AuthError) { _ = try await client.logout() } catch { return error }
            return nil
        }
        if case .storage(let error)? = result { throw error }
        _ = try vault.remove(BrokeredSessions.settingsID(profile: profile))
        forget(profile: profile, at: path)
        return .success(1)
    }

    func sessionID(profile: String, in vault: Vault) throws(CofferError) -> ItemID? {
        try Login.sessionID(profile: profile, in: vault)
    }

    func forgetClient(profile: String, at path: String) {
        forget(profile: profile, at: path)
    }

    /// The client of the login `profile`, or `nil` when the vault holds none of this kind.
    private func client(profile: String, in vault: Vault, at path: String) throws(CofferError) -> (any BrokeredClient)? {
        guard let settings = try Login.settings(profile: profile, in: vault) else { return nil }
        let key = Key(path: path, profile: profile)
        return clients.withLock { held in
            if let existing = held[key], existing.vault == ObjectIdentifier(vault), existing.settings == settings { return existing.client }
            let client = Login.client(settings, profile: profile, in: vault, configuration: configuration)
            held[key] = Held(vault: ObjectIdentifier(vault), settings: settings, client: client)
            return client
        }
    }

    /// Whether a refusal of its current token made the login `key` refresh less than
    /// ``refusalInterval`` ago; when not, this refusal is noted as the last.
    private func refusedTooSoon(_ key: Key) -> Bool {
        let now = ContinuousClock.now
        return refreshedOnRefusal.withLock { last in
            if let previous = last[key], now - previous < Self.refusalInterval { return true }
            last[key] = now
            return false
        }
    }

    /// Drops the client of `profile`: its login was replaced or ended.
    private func forget(profile: String, at path: String) {
        clients.withLock { $0[Key(path: path, profile: profile)] = nil }
        refreshedOnRefusal.withLock { $0[Key(path: path, profile: profile)] = nil }
    }

    /// What a program is told when no token could be had, never with a token. An expired token
    /// that cannot be renewed (no refresh token) needs a new login.
    static func failure(for error: AuthError) -> TokenFailure {
        switch error {
        case .notAuthenticated: .notLoggedIn
        case .reauthenticationRequired, .tokenExpired: .loginRequired
        case .transport, .timeout, .serverError, .cancelled: .providerUnavailable(error.description)
        default: .providerError(error.description)
        }
    }

    /// Runs `body` and waits for it on this thread (an agent worker's, never one of the
    /// concurrency pool's).
    private static func wait<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let result = Guarded<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}
