import Coffer
import Foundation

/// An OpenID login as a program hands it to the agent's token broker (docs/agent.md, "The
/// token broker"): what the agent needs to refresh it (the provider, the client id and secret)
/// and the session, refresh token included. In the vault it is two items of
/// ``BrokeredSessions``: the settings (account: the profile) and the session (where
/// ``OpenIDClient`` keeps it), which no item request reaches. Its settings are format 1
/// (``BrokeredLoginKind/openID``).
package struct BrokeredLogin: Sendable, Codable, BrokerableLogin {
    /// What the agent keeps of a profile besides its session.
    package struct Settings: Sendable, Codable, Hashable {
        var format = BrokeredLoginKind.openID.rawValue
        package var provider: OpenIDProvider
        package var clientID: String
        package var clientSecret: String?
    }

    var settings: Settings
    var session: OpenIDSession
    /// The programs that get the login's tokens besides the program that hands it over
    /// (``BrokeredLoginKind/allowedPrograms(in:)``).
    var allowed: [String]? = nil

    /// The bytes of a `keep login` request.
    func encoded() throws(AuthError) -> SecureBytes {
        try BrokeredLoginKind.encode(self)
    }

    package static func keep(_ bytes: SecureBytes, profile: String, in vault: Vault, owner: Program?, removing: [ItemID]) throws(CofferError) {
        let data = bytes.withUnsafeBytes { Data($0) }
        guard let login = try? JSONDecoder.sessions.decode(BrokeredLogin.self, from: data), login.settings.format == BrokeredLoginKind.openID.rawValue,
              login.session.format == 1, login.session.profile == profile, login.session.clientID == login.settings.clientID,
              login.session.issuer == login.settings.provider.issuer.absoluteString
        else { throw .invalidArgument(reason: "the login to keep is not one of this profile") }
        let allowed = try BrokeredLoginKind.allowedPrograms(in: bytes)
        let location = OpenIDSessionLocation(issuer: login.session.issuer, clientID: login.session.clientID, profile: profile)
        guard let session = try? login.session.storedForm(), let settings = try? JSONEncoder.sessions.encode(login.settings) else {
            throw .invalidArgument(reason: "the login to keep cannot be encoded")
        }
        // A profile logged in again, perhaps at another provider: its old session goes.
        let replaced = try sessionID(profile: profile, in: vault).map { [$0] } ?? []
        try vault.setOwned(
            [
                (location.itemID, session, location.options, []),
                (BrokeredSessions.settingsID(profile: profile), settings, ItemOptions(label: "Coffer brokered login \(profile) (\(login.session.issuer))"), allowed),
            ], removing: removing + replaced, by: owner)
    }
}

extension BrokeredLogin {
    /// The settings of the brokered OpenID login `profile` in `vault`, or `nil` when it holds
    /// none (or none it can read, or another kind's).
    package static func settings(profile: String, in vault: Vault) throws(CofferError) -> Settings? {
        guard let data = try vault.secret(for: BrokeredSessions.settingsID(profile: profile)),
              let settings = try? JSONDecoder.sessions.decode(Settings.self, from: data), settings.format == BrokeredLoginKind.openID.rawValue
        else { return nil }
        return settings
    }

    package static func sessionID(profile: String, in vault: Vault) throws(CofferError) -> ItemID? {
        try settings(profile: profile, in: vault).map { location(of: $0, profile: profile).itemID }
    }

    package static func sessionLockName(_ settings: Settings, profile: String) -> String {
        OpenIDClient.sessionLockName(location(of: settings, profile: profile))
    }

    /// Where the client of `settings` keeps the session of `profile`.
    private static func location(of settings: Settings, profile: String) -> OpenIDSessionLocation {
        OpenIDSessionLocation(issuer: settings.provider.issuer.absoluteString, clientID: settings.clientID, profile: profile)
    }

    package static func client(_ settings: Settings, profile: String, in vault: Vault, configuration: ClientConfiguration) -> any BrokeredClient {
        OpenIDClient(
            provider: settings.provider, clientID: settings.clientID, clientSecret: settings.clientSecret, store: vault, profile: profile,
            configuration: configuration)
    }
}
