import Coffer
import Foundation

/// An OpenID login as a program hands it to the agent's token broker (docs/agent.md, "The
/// token broker"): what the agent needs to refresh it (the provider, the client id and secret)
/// and the session, refresh token included. In the vault it is two items of
/// ``BrokeredSessions``: the settings (account: the profile) and the session (where
/// ``OpenIDClient`` keeps it), which no item request reaches.
package struct BrokeredLogin: Sendable, Codable {
    /// What the agent keeps of a profile besides its session.
    package struct Settings: Sendable, Codable, Hashable {
        var format = 1
        package var provider: OpenIDProvider
        package var clientID: String
        package var clientSecret: String?
    }

    var settings: Settings
    var session: OpenIDSession
    /// The executables (real paths) that get the login's tokens besides the program that hands
    /// it over, as `coffer set --allow` names them for an item: on the settings item's access list.
    var allowed: [String]? = nil

    /// The most programs a login names.
    static let maxAllowed = 8

    /// The bytes of a `keep login` request.
    func encoded() throws(AuthError) -> SecureBytes {
        guard var data = try? JSONEncoder.sessions.encode(self) else { throw .invalidRequest(reason: "the login cannot be encoded") }
        defer { data.resetBytes(in: 0..<data.count) }
        return SecureBytes(copying: Array(data))
    }

    /// Stores the login of `profile` read from `bytes` in `vault`, new items owned by `owner`:
    /// the session first, then the settings that make it usable. Throws
    /// ``CofferError/invalidArgument(reason:)`` for bytes that are no login of that profile.
    package static func keep(_ bytes: SecureBytes, profile: String, in vault: Vault, owner: Program?) throws(CofferError) {
        let data = bytes.withUnsafeBytes { Data($0) }
        guard let login = try? JSONDecoder.sessions.decode(BrokeredLogin.self, from: data), login.settings.format == 1,
              login.session.format == 1, login.session.profile == profile, login.session.clientID == login.settings.clientID,
              login.session.issuer == login.settings.provider.issuer.absoluteString, (login.allowed?.count ?? 0) <= maxAllowed
        else { throw .invalidArgument(reason: "the login to keep is not one of this profile") }
        let allowed = try (login.allowed ?? []).map { path throws(CofferError) in try Program(executablePath: Array(path.utf8)) }
        let location = OpenIDSessionLocation(issuer: login.session.issuer, clientID: login.session.clientID, profile: profile)
        guard let session = try? JSONEncoder.sessions.encode(login.session), let settings = try? JSONEncoder.sessions.encode(login.settings) else {
            throw .invalidArgument(reason: "the login to keep cannot be encoded")
        }
        // A profile logged in again, perhaps at another provider: its old session goes.
        if let old = try Settings.load(profile: profile, from: vault), old.clientID != login.settings.clientID || old.provider.issuer != login.settings.provider.issuer {
            _ = try vault.remove(OpenIDSessionLocation(issuer: old.provider.issuer.absoluteString, clientID: old.clientID, profile: profile).itemID)
        }
        try vault.set(session, for: location.itemID, options: location.options, owner: owner)
        try vault.set(
            settings, for: BrokeredSessions.settingsID(profile: profile),
            options: ItemOptions(label: "Coffer brokered login \(profile) (\(login.session.issuer))"), owner: owner, allowing: allowed)
    }
}

extension BrokeredLogin.Settings {
    /// The settings of the brokered login `profile` in `vault`, or `nil` when it holds none
    /// (or none it can read).
    package static func load(profile: String, from vault: Vault) throws(CofferError) -> Self? {
        guard let data = try vault.secret(for: BrokeredSessions.settingsID(profile: profile)) else { return nil }
        return try? JSONDecoder.sessions.decode(Self.self, from: data)
    }
}
