import Coffer
import CofferAgent

/// The broker of one kind of login (``ClientTokenBroker``) as ``LoginTokenBroker`` uses it when
/// a login of one kind replaces another's: the old kind's session goes in the new login's
/// transaction, under the old kind's session lock.
protocol LoginKindBroker: TokenBroker {
    /// ``TokenBroker/keep(_:profile:in:at:owner:)``, removing the items `removing` names in the same transaction.
    func keep(_ login: SecureBytes, profile: String, in vault: Vault, at path: String, owner: Program?, removing: [ItemID]) throws(CofferError)

    /// Runs `body` holding the session lock of this kind's login `profile` in `vault`, if any.
    func holdingSessionLock<Value>(profile: String, in vault: Vault, _ body: () throws(CofferError) -> Value) throws(CofferError) -> Value

    /// The item of the session of `profile` in `vault`, which a login of another kind replaces.
    func sessionID(profile: String, in vault: Vault) throws(CofferError) -> ItemID?

    /// Forgets the client of `profile`: a login of another kind replaced it.
    func forgetClient(profile: String, at path: String)
}
