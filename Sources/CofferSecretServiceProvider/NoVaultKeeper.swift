import Coffer

/// The keeper of a provider that serves a share's items (``SecretServiceProvider/Configuration/upstream(socket:replace:)``):
/// it holds no vault, ever, and keeps none it is given.
package struct NoVaultKeeper: VaultKeeper {
    package init() {}

    package func vault(at path: String) -> Vault? { nil }

    /// Locks `vault` at once: this process keeps no key.
    package func keep(_ vault: Vault, at path: String, for lifetime: Double) { vault.lock() }

    package func forget(_ path: String) {}

    package var heldPaths: [String] { [] }
}
