import CSodium

/// Process-wide libsodium initialisation.
enum Sodium {
    // `sodium_init` is idempotent and thread-safe; a static let runs it once.
    private static let initialized: Bool = sodium_init() >= 0

    /// Initialises libsodium on first use. Fails only when the system has no randomness source.
    static func ensureInitialized() {
        precondition(initialized, "libsodium could not be initialised")
    }

    /// The libsodium version string, for diagnostics.
    static var version: String {
        String(cString: sodium_version_string())
    }
}
