import Coffer
import Foundation

extension OpenIDClient {
    /// Ends the session. It is cleared from the store first, so nothing is left behind even when
    /// the provider is unreachable, once a refresh in flight in another process has stored what
    /// it got; then the refresh token is revoked, then the access token (RFC 7009, when the
    /// provider has a revocation endpoint). Throws
    /// ``AuthError/logoutIncomplete(_:)`` naming each step that failed.
    @discardableResult
    public func logout() async throws(AuthError) -> LogoutReport {
        if let broker { return try await brokeredLogout(from: broker) }
        epoch += 1
        // Nothing of the session is handed out while the logout waits for the session lock.
        cached = .some(nil)
        await refreshing.fail(with: .notAuthenticated)
        var report = LogoutReport()
        var failures: [LogoutFailure] = []
        var ended: OpenIDSession?
        do throws(AuthError) {
            // Under the session lock: a refresh in flight elsewhere stores its rotated session
            // first, which is then the one removed and revoked here, not written back after.
            (ended, report.removedStoredSession) = try await writingSession { () throws(AuthError) in
                let stored = try reloadSession()
                let removed = try location.remove(from: store)
                cached = .some(nil)
                return (stored, removed)
            }
        } catch {
            failures.append(LogoutFailure(step: .removeStoredSession, reason: error.description))
        }
        if let ended, let endpoint = provider.revocationEndpoint {
            let tokens = [(ended.refreshToken, "refresh_token"), (ended.accessToken?.value, "access_token")]
                .compactMap { pair in pair.0.map { (token: $0, hint: pair.1) } }
            let outcome = await TokenRevocation.revokeAll(tokens, at: endpoint, client: credentials, backendID: nil, transport: transport)
            report.revoked = outcome.revoked
            failures += outcome.failures
        }
        if ended != nil { broadcaster.send(.loggedOut) }
        configuration.logger.info("logged out", metadata: ["profile": "\(profile)", "failures": "\(failures.count)"])
        guard failures.isEmpty else { throw .logoutIncomplete(failures) }
        return report
    }

    /// The logins `store` holds, by issuer, client id and profile: for listing them, or ending
    /// them all (`coffer logout --all`). Items that cannot be read are left out.
    public static func storedLogins(in store: any CredentialStore) throws(AuthError) -> [StoredLogin] {
        let items: [ItemAttributes]
        do { items = try store.items(matching: ItemQuery(service: OpenIDSessionLocation.service)) } catch { throw .storage(error) }
        return items.compactMap { item in
            guard let issuer = item.custom["coffer.openid.issuer"].flatMap(URL.init(string:)),
                  let clientID = item.custom["coffer.openid.client"], let profile = item.custom["coffer.openid.profile"]
            else { return nil }
            return StoredLogin(issuer: issuer, clientID: clientID, profile: profile)
        }
    }

    /// Removes a stored login without contacting its provider, for a login whose provider is
    /// no longer known: its tokens stay valid at the provider until they expire.
    public static func forget(_ login: StoredLogin, in store: any CredentialStore) throws(AuthError) {
        try OpenIDSessionLocation(issuer: login.issuer.absoluteString, clientID: login.clientID, profile: login.profile).remove(from: store)
    }

    /// A login kept in a store.
    public struct StoredLogin: Sendable, Hashable {
        public let issuer: URL
        public let clientID: String
        public let profile: String
    }
}
