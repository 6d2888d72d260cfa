import Coffer
import CofferAgent
import CofferAuth

/// The agent's token broker (docs/agent.md, "The token broker"), as `coffer agent start` gives
/// it: each profile's login is of one kind (``BrokeredLoginKind``), an OpenID login or a mobile
/// backend's OAuth login, told by its stored settings, and the broker of that kind
/// (``ClientTokenBroker``) answers for it. A new login of another kind replaces the old one's session.
package final class LoginTokenBroker: TokenBroker {
    private let openID: ClientTokenBroker<BrokeredLogin>
    private let mobileBackend: ClientTokenBroker<BrokeredBackendLogin>

    /// A broker whose clients follow `configuration` (timeouts, leeway, HTTP policy).
    package init(configuration: ClientConfiguration = ClientConfiguration()) {
        openID = ClientTokenBroker(configuration: configuration)
        mobileBackend = ClientTokenBroker(configuration: configuration)
    }

    package func freshToken(profile: String, in vault: Vault, at path: String) -> BrokeredToken? {
        guard let kind = try? BrokeredLoginKind.stored(profile: profile, in: vault) else { return nil }
        return broker(of: kind).freshToken(profile: profile, in: vault, at: path)
    }

    package func token(profile: String, refused: String?, in vault: Vault, at path: String) throws(CofferError) -> Result<BrokeredToken, TokenFailure> {
        guard let kind = try BrokeredLoginKind.stored(profile: profile, in: vault) else { return .failure(.notLoggedIn) }
        return try broker(of: kind).token(profile: profile, refused: refused, in: vault, at: path)
    }

    package func keep(_ login: SecureBytes, profile: String, in vault: Vault, at path: String, owner: Program?) throws(CofferError) {
        let kind = try BrokeredLoginKind(login: login)
        // The old kind's session goes in the same transaction as the new login's items, which
        // checks that the caller owns all of them: a refused login changes nothing.
        let old = try BrokeredLoginKind.stored(profile: profile, in: vault).flatMap { $0 == kind ? nil : broker(of: $0) }
        let stale = try old?.sessionID(profile: profile, in: vault)
        let new = broker(of: kind)
        let keepNew = { () throws(CofferError) in
            try new.keep(login, profile: profile, in: vault, at: path, owner: owner, removing: stale.map { [$0] } ?? [])
        }
        guard let old else { return try keepNew() }
        // A refresh of the old kind's login in flight stores its session before it goes.
        try old.holdingSessionLock(profile: profile, in: vault, keepNew)
        old.forgetClient(profile: profile, at: path)
    }

    package func end(profile: String, in vault: Vault, at path: String) throws(CofferError) -> Result<Int, TokenFailure> {
        guard let kind = try BrokeredLoginKind.stored(profile: profile, in: vault) else { return .success(0) }
        return try broker(of: kind).end(profile: profile, in: vault, at: path)
    }

    private func broker(of kind: BrokeredLoginKind) -> any LoginKindBroker {
        switch kind {
        case .openID: openID
        case .mobileBackend: mobileBackend
        }
    }
}
