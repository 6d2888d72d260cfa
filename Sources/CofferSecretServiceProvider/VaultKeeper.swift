import Coffer

/// Where the provider finds the vaults it serves unlocked: the agent's held vaults, so that
/// `coffer unlock`, a machine slot at agent start and the Secret Service's own `Unlock` all
/// unlock the same collection, and `coffer lock` and `Lock` both lock it. Paths are real paths,
/// as the agent names vaults. Safe from any thread.
package protocol VaultKeeper: Sendable {
    /// The vault held unlocked at `path`, counting as a use; `nil` when none is.
    func vault(at path: String) -> Vault?
    /// Holds `vault`, unlocked, at `path` for `lifetime` seconds.
    func keep(_ vault: Vault, at path: String, for lifetime: Double)
    /// Forgets the vault at `path`; its keys are zeroed.
    func forget(_ path: String)
    /// The paths of every vault held now.
    var heldPaths: [String] { get }
}
