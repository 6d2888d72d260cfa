import Coffer
import CofferAuth
import CofferBase
import CofferCommandLine
import Foundation

/// What the OpenID commands share: finding a profile's settings and its client.
extension CofferAuthCommand {
    /// The client of the OpenID login `profile`; throws ``AuthError/notAuthenticated`` (``ExitStatus/loginNeeded``)
    /// when there is none. `store`: the store already opened, if any.
    func openIDClient(profile: String, store opened: (any CredentialStore)? = nil) throws -> (client: OpenIDClient, settings: OpenIDProfile) {
        let store = try opened ?? store()
        guard let settings = try OpenIDProfile.load(profile, from: AuthProfile(store: store, network: network).keychain) else {
            throw AuthError.notAuthenticated
        }
        return (settings.client(profile: profile, store: store, network: network), settings)
    }

    /// The mobile backend's OAuth login that the agent holds as `profile`, or `nil` when
    /// `profile` is no such login.
    func brokeredBackendLogin(profile: String) throws -> Authorization? {
        let settings = AuthProfile(store: try store(), network: network)
        guard try settings.brokeredProfile() == profile, let backend = try settings.backend() else { return nil }
        return settings.authorization(for: backend, brokeredAs: profile)
    }

    /// Whether a command without --profile means an OpenID login: when no mobile-backend login
    /// is stored and the default OpenID profile is.
    func defaultsToOpenID() throws -> Bool {
        let keychain = AuthProfile(store: try store(), network: network).keychain
        return try keychain.data(for: AuthProfile.backendAccount) == nil
            && OpenIDProfile.load(OpenIDProfile.defaultName, from: keychain) != nil
    }
}

/// How the OpenID commands describe a login for people and for scripts.
enum OpenIDStatusText {
    static func describe(_ status: OpenIDSessionStatus) -> String {
        let issuer = TerminalText.escaped(status.issuer.absoluteString)
        guard status.isLoggedIn else { return "not logged in to \(issuer)" }
        let who = status.user.map { " as \(TerminalText.escaped($0.displayName))" } ?? ""
        if status.isAuthorized { return "authorized\(who) (\(issuer))" + SessionText.expiry(status.accessTokenExpiresAt) }
        let next = status.refreshTokenHeld ? "the next command refreshes it" : "log in again"
        return "logged in\(who) (\(issuer)); the access token has expired; \(next)"
    }

    /// `status --json`: stable field names, never a token.
    struct JSON: Encodable {
        let issuer: String
        let subject: String?
        let user: String?
        let expiresAt: Date?
        let refreshTokenHeld: Bool
        let isAuthorized: Bool
        let needsRefresh: Bool
        let needsLogin: Bool
        let profile: String
        let apiOrigins: [String]

        init(_ status: OpenIDSessionStatus, profile: String) {
            issuer = status.issuer.absoluteString
            subject = status.user?.id
            user = status.user?.displayName
            expiresAt = status.accessTokenExpiresAt
            refreshTokenHeld = status.refreshTokenHeld
            isAuthorized = status.isAuthorized
            needsRefresh = status.needsRefresh
            needsLogin = status.needsLogin
            self.profile = profile
            apiOrigins = status.apiOrigins
        }
    }
}
