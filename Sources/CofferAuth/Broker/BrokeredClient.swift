import Coffer

/// A login client as the agent's token broker runs it on a held vault (docs/agent.md, "The
/// token broker"): ``OpenIDClient`` and ``Authorization``.
package protocol BrokeredClient: AuthorizationClient {
    /// The token ``brokeredToken(refusing:)`` would answer without the network (`refusing`
    /// nothing), or `nil`: this never refreshes.
    func freshToken() async -> BrokeredToken?

    /// A valid access token for a program that asked the agent: ``AuthorizationClient/accessToken()``,
    /// which refreshes once for every concurrent caller and stores the rotated refresh token
    /// before it returns. `refused`, when it is the current token, is never handed out again.
    func brokeredToken(refusing refused: String?) async throws(AuthError) -> BrokeredToken
}
