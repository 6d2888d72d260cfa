import Coffer
import CofferAgent

/// The agent's held vaults are what the provider serves: one set of unlocked vaults for the
/// CLI and the Secret Service alike.
extension HeldVaults: VaultKeeper {
    package func vault(at path: String) -> Vault? { use(path) }

    package func keep(_ vault: Vault, at path: String, for lifetime: Double) { hold(vault, at: path, for: lifetime) }

    package var heldPaths: [String] { status.map(\.path) }
}
