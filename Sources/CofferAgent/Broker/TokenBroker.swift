import Coffer

/// What keeps the logins the agent brokers and refreshes their tokens (docs/agent.md, "The
/// token broker"). The agent's handler decides who may have a profile's tokens and logs what it
/// hands out; the broker holds the sessions, in the vault's items of ``BrokeredSessions``, and
/// speaks to the providers. `coffer agent start` gives the OpenID broker (CofferTokenBroker),
/// which links the networking this module does not.
///
/// Every method is called on an agent worker thread and may block it for as long as the
/// provider takes (bounded by the client's timeouts).
package protocol TokenBroker: Sendable {
    /// The held access token of the login `profile` when it is valid, so that
    /// ``token(profile:refused:in:at:)`` would answer it without the network; `nil` when it is
    /// not, or when unsure. Never uses the network.
    func freshToken(profile: String, in vault: Vault, at path: String) -> BrokeredToken?

    /// A valid access token of the login `profile`: the held one, or one refreshed once for
    /// every concurrent caller, its rotated refresh token stored durably in `vault` before this
    /// returns. `refused`: a token a resource refused, never handed out again.
    /// The vault's own failures are thrown.
    func token(profile: String, refused: String?, in vault: Vault, at path: String) throws(CofferError) -> Result<BrokeredToken, TokenFailure>

    /// Stores a new login of profile `profile` (`login`: ``BrokeredLogin``'s encoding), its
    /// items new ones owned by `owner`, or replaces the login `owner` made before. Throws
    /// ``CofferError/accessDenied(program:)``, changing nothing, when another program made the
    /// profile's login, and ``CofferError/invalidArgument(reason:)`` for a login it cannot read.
    func keep(_ login: SecureBytes, profile: String, in vault: Vault, at path: String, owner: Program?) throws(CofferError)

    /// Ends the login `profile`: revokes its refresh token where the provider allows, and
    /// removes its items. Returns how many logins were removed (0 or 1); the vault's own
    /// failures are thrown.
    func end(profile: String, in vault: Vault, at path: String) throws(CofferError) -> Result<Int, TokenFailure>
}
