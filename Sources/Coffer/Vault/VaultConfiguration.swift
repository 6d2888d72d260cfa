import FoundationEssentials

extension Vault {
    /// Settings for opening or creating a vault. The defaults suit an interactive app.
    public struct Configuration: Sendable {
        /// The Argon2id cost of passphrase slots this vault creates. Default: ``PassphraseCost/moderate``.
        public var passphraseCost: PassphraseCost
        /// Lock the vault after this long without use. Default: never.
        public var autoLockAfter: Duration?
        /// How long to wait for another process's write to finish before failing with
        /// ``CofferError/storageUnavailable(reason:)``. Default: 30 s.
        public var busyTimeout: Duration
        /// The clock that decides expiry. Inject one in tests.
        public var now: @Sendable () -> Date

        /// Creates a configuration; every setting has a default.
        public init(
            passphraseCost: PassphraseCost = .moderate,
            autoLockAfter: Duration? = nil,
            busyTimeout: Duration = .seconds(30),
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.passphraseCost = passphraseCost
            self.autoLockAfter = autoLockAfter
            self.busyTimeout = busyTimeout
            self.now = now
        }
    }
}
