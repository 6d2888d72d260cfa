import Coffer
import CofferAgent

/// The agent's held vaults are what the provider serves: one set of unlocked vaults for the
/// CLI and the Secret Service alike.
extension HeldVaults: VaultKeeper {
    package func vault(at path: String) -> Vault? { use(path) }

    /// Held for the Secret Service's clients: forgotten when its bus goes.
    package func keep(_ vault: Vault, at path: String, for lifetime: Double) { hold(vault, at: path, for: lifetime, holder: .frontEnd) }

    package var heldPaths: [String] { status.map(\.path) }
}
