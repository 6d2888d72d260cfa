import FoundationEssentials

extension Keychain {
    /// Where ``Keychain/init(service:fallback:)`` keeps items when no agent runs. Named by the
    /// app, never chosen for it: the login keychain never opens a vault in process by itself.
    public enum Fallback: Sendable {
        /// A vault of the app's own at `url` (default: ``Vault/defaultURL(name:)``), opened in
        /// this process with `credential`, and created with it as its first key slot if there is
        /// none.
        case vault(at: URL? = nil, unlock: VaultCredential)
    }
}
