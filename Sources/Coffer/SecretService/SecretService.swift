/// The freedesktop Secret Service: gnome-keyring, KeePassXC or KWallet on the D-Bus session bus.
///
/// Coffer uses it in two ways: as a store of its own (``SecretServiceStore``) and as the holder
/// of a vault key (``VaultCredential/secretService(_:)``). Either way it never starts a daemon
/// through D-Bus activation, never shows an unlock prompt, and never waits longer than
/// ``Configuration/timeout``: an absent, locked or slow service is a typed error
/// (``CofferError/secretServiceUnavailable(reason:)``, ``CofferError/locked``,
/// ``CofferError/timeout``), never an empty store and never a silent switch to another store.
public enum SecretService {
    /// The timeout used when none is given: 5 seconds.
    public static let defaultTimeout: Duration = .seconds(5)

    /// Whether the Secret Service can be used now.
    public enum Status: Sendable, Hashable, CustomStringConvertible {
        /// A daemon runs and its default collection is unlocked.
        case available
        /// A daemon runs, but its default collection is locked or does not exist. Unlocking or
        /// creating it needs the user (for example logging in to the desktop); Coffer never prompts.
        case locked
        /// The session bus works, but no daemon owns `org.freedesktop.secrets` on it.
        case noDaemon
        /// There is no D-Bus session bus to talk to (typical of SSH sessions, containers and CI).
        case noSessionBus

        public var description: String {
            switch self {
            case .available: "available"
            case .locked: "locked"
            case .noDaemon: "no daemon"
            case .noSessionBus: "no session bus"
            }
        }
    }

    /// How Coffer talks to the Secret Service.
    public struct Configuration: Sendable, Hashable {
        /// The longest any one operation may take, all its D-Bus calls together. Default: 5 s.
        public var timeout: Duration
        /// The `application` attribute written on every item. Default: `coffer`.
        public var application: String

        public init(timeout: Duration = SecretService.defaultTimeout, application: String = "coffer") {
            self.timeout = timeout
            self.application = application
        }
    }

    /// Checks the session bus, the daemon and the default collection, within `timeout`.
    ///
    /// Throws ``CofferError/timeout`` when the bus or the daemon does not answer in time.
    public static func status(timeout: Duration = defaultTimeout) throws(CofferError) -> Status {
        try SecretServiceConnection.status(timeout: timeout)
    }
}
