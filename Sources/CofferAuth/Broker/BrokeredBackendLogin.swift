import Coffer
import Foundation

/// A mobile backend's OAuth login as a program hands it to the agent's token broker (docs/agent.md,
/// "The token broker"): the backend, which names what a refresh needs (the token URL, the client id
/// and secret, the backend id, the revocation URL), and the session, refresh token included. In the
/// vault it is two items of ``BrokeredSessions``, which no item request reaches: the settings
/// (account: the profile; format 2, ``BrokeredLoginKind/mobileBackend``) and the session
/// (``sessionID(profile:)``), where the agent's ``Authorization`` keeps it.
package struct BrokeredBackendLogin: Sendable, Codable, BrokerableLogin {
    /// What the agent keeps of a profile besides its session.
    package struct Settings: Sendable, Codable, Hashable {
        var format = BrokeredLoginKind.mobileBackend.rawValue
        package var backend: MobileBackend
    }

    var settings: Settings
    var session: StoredSession
    /// The programs that get the login's tokens besides the program that hands it over
    /// (``BrokeredLoginKind/allowedPrograms(in:)``).
    var allowed: [String]?

    init(backend: MobileBackend, session: StoredSession, allowed: [String]? = nil) {
        settings = Settings(backend: backend)
        self.session = session
        self.allowed = allowed
    }

    /// The item that holds the session of profile `profile`.
    package static func sessionID(profile: String) -> ItemID {
        .genericPassword(service: BrokeredSessions.service, account: "\(profile) mobile-backend")
    }

    /// The bytes of a `keep login` request.
    func encoded() throws(AuthError) -> SecureBytes {
        try BrokeredLoginKind.encode(self)
    }

    /// Only an OAuth session of the backend the settings name, at a token endpoint, with a token,
    /// is a login the agent can hold.
    package static func keep(_ bytes: SecureBytes, profile: String, in vault: Vault, owner: Program?, removing: [ItemID]) throws(CofferError) {
        let data = bytes.withUnsafeBytes { Data($0) }
        guard let login = try? JSONDecoder.sessions.decode(BrokeredBackendLogin.self, from: data),
              login.settings.format == BrokeredLoginKind.mobileBackend.rawValue, login.settings.backend.oauthClient != nil,
              login.session.format == 2, login.session.method == .oauth, login.session.token != nil, login.session.password == nil,
              login.session.binding == login.settings.backend.binding
        else { throw .invalidArgument(reason: "the login to keep is not a mobile backend's OAuth login") }
        let allowed = try BrokeredLoginKind.allowedPrograms(in: bytes)
        guard let session = try? JSONEncoder.sessions.encode(login.session), let settings = try? JSONEncoder.sessions.encode(login.settings) else {
            throw .invalidArgument(reason: "the login to keep cannot be encoded")
        }
        try vault.setOwned(
            [
                (sessionID(profile: profile), session, ItemOptions(label: "Coffer brokered session \(profile)"), []),
                (BrokeredSessions.settingsID(profile: profile), settings,
                 ItemOptions(label: "Coffer brokered login \(profile) (\(login.settings.backend.binding))"), allowed),
            ], removing: removing, by: owner)
    }

    /// The settings of the brokered mobile backend login `profile` in `vault`, or `nil` when it
    /// holds none (or none it can read, or another kind's).
    package static func settings(profile: String, in vault: Vault) throws(CofferError) -> Settings? {
        guard let data = try vault.secret(for: BrokeredSessions.settingsID(profile: profile)),
              let settings = try? JSONDecoder.sessions.decode(Settings.self, from: data),
              settings.format == BrokeredLoginKind.mobileBackend.rawValue
        else { return nil }
        return settings
    }

    package static func sessionID(profile: String, in vault: Vault) throws(CofferError) -> ItemID? {
        try settings(profile: profile, in: vault) == nil ? nil : sessionID(profile: profile)
    }

    package static func sessionLockName(_ settings: Settings, profile: String) -> String {
        Authorization.sessionLockName(binding: settings.backend.binding, account: sessionID(profile: profile).account)
    }

    package static func client(_ settings: Settings, profile: String, in vault: Vault, configuration: ClientConfiguration) -> any BrokeredClient {
        Authorization(backend: settings.backend, store: vault, sessionItem: sessionID(profile: profile), configuration: configuration)
    }
}
