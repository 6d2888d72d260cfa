import Coffer

/// A kind of login the agent's token broker can hold (docs/agent.md, "The token broker"): how
/// its settings and session are kept in a held vault, and the client that refreshes it there.
/// ``BrokeredLogin`` (OpenID) and ``BrokeredBackendLogin`` (a mobile backend's OAuth login).
package protocol BrokerableLogin {
    /// What the agent keeps of a profile besides its session: what a refresh needs.
    associatedtype Settings: Sendable & Hashable

    /// The settings of the login `profile` in `vault`, or `nil` when it holds none of this kind.
    static func settings(profile: String, in vault: Vault) throws(CofferError) -> Settings?

    /// Stores the login of `profile` read from `bytes` in `vault`, its session and settings in
    /// one transaction (``Vault/setOwned(_:removing:by:)``) that also removes the items `removing`
    /// names and a session of this kind the login replaces: new items `owner`'s, the settings with
    /// the login's other programs allowed, or items `owner` owns replaced. Throws
    /// ``CofferError/accessDenied(program:)``, changing nothing, when one is another's, and
    /// ``CofferError/invalidArgument(reason:)`` for bytes that are no login of this kind and profile.
    static func keep(_ bytes: SecureBytes, profile: String, in vault: Vault, owner: Program?, removing: [ItemID]) throws(CofferError)

    /// The item of the session of `profile` this kind keeps in `vault` (its settings say which),
    /// or `nil` when there is none: a login of another kind replaces it.
    static func sessionID(profile: String, in vault: Vault) throws(CofferError) -> ItemID?

    /// The client that refreshes the login on the held vault itself.
    static func client(_ settings: Settings, profile: String, in vault: Vault, configuration: ClientConfiguration) -> any BrokeredClient

    /// The name of the lock the client of `settings` holds while it writes the session of
    /// `profile` (its refresh, its logout).
    static func sessionLockName(_ settings: Settings, profile: String) -> String
}

extension BrokerableLogin {
    /// Runs `body`, a write of the login `profile` in `vault`, holding its session lock when the
    /// vault holds a login of this kind: a refresh of that login in flight stores its rotated
    /// session first, so that `body` (a new login, say) is not written over after. Blocks the
    /// calling thread (an agent worker's), at most `configuration.refreshLockTimeout`; then
    /// `body` runs anyway.
    package static func holdingSessionLock<Value>(
        profile: String, in vault: Vault, configuration: ClientConfiguration, _ body: () throws(CofferError) -> Value
    ) throws(CofferError) -> Value {
        guard let settings = try settings(profile: profile, in: vault) else { return try body() }
        return try RefreshLock.writingBlocking(
            name: sessionLockName(settings, profile: profile), folder: configuration.lockFolder, timeout: configuration.refreshLockTimeout, body)
    }
}
