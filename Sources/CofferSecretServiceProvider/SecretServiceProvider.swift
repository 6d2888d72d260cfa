import CGio
import CofferAgent
import CofferBase
import Coffer
import Dispatch
import Foundation

/// Coffer as the freedesktop Secret Service (API 0.2): `org.freedesktop.secrets` on the
/// session bus, serving the vaults the agent holds as collections, so that every program that
/// keeps its logins through the Secret Service (libsecret, python-keyring, go-keyring, git's
/// and docker's helpers) keeps them in a vault. docs/secret-service.md has the model.
///
/// It runs on a thread of its own with a GLib main loop; ``start()`` returns once it serves.
package final class SecretServiceProvider: Sendable {
    /// The bus name of the Secret Service.
    package static let busName = "org.freedesktop.secrets"

    /// How the provider runs.
    package struct Configuration: Sendable {
        /// The login collection's vault: the one `coffer` uses by default.
        package var loginVault: URL
        /// Take the name over from another owner that allows it (`--replace`).
        package var replace = false
        /// What `Prompt` runs to ask for a passphrase; `nil`: prompts complete dismissed at once.
        package var prompter: PrompterCommand?
        /// How long a vault unlocked through a prompt stays held, in seconds.
        package var unlockLifetime: Double = 3600
        /// The session bus; `nil`: ``SessionBusAddress/find(in:)``.
        package var busAddress: String?
        /// A share's socket whose items are served as the only collection, in place of any vault
        /// (``upstream(socket:replace:)``).
        package private(set) var upstream: String?

        package init(loginVault: URL, replace: Bool = false, prompter: PrompterCommand? = nil) {
            self.loginVault = loginVault
            self.replace = replace
            self.prompter = prompter
        }

        /// Serving the items of the share at `socket` (`coffer agent share`), with no vault and
        /// no prompter: the share's grant decides what exists (docs/secret-service.md, "Inside a
        /// sandbox"). Run it with ``NoVaultKeeper``.
        package static func upstream(socket: String, replace: Bool = false) -> Configuration {
            var configuration = Configuration(loginVault: URL(fileURLWithPath: socket), replace: replace)
            configuration.upstream = socket
            return configuration
        }
    }

    /// Why the provider stopped serving while its process runs on. Either way it serves no
    /// object any more; the agent decides whether to go on without it.
    package enum Interruption: Sendable, Equatable {
        /// The session bus closed the connection: the bus ended (its `dbus-run-session` or login
        /// session did), or it dropped the provider.
        case busClosed
        /// The bus took `org.freedesktop.secrets` away. The provider asks for it without
        /// `ALLOW_REPLACEMENT`, so no other process can take it; the bus still tells this when
        /// the name is released.
        case nameLost
    }

    private let configuration: Configuration
    private let keeper: any VaultKeeper
    /// The thread the provider's objects live on (tests reach them through ``MainLoopThread/perform(_:)``).
    let loop = MainLoopThread<SecretServiceObjects>()
    /// Called (on the loop thread) when the provider stops serving while it runs.
    private let onInterruption: @Sendable (Interruption) -> Void

    package init(configuration: Configuration, keeper: any VaultKeeper, onInterruption: @escaping @Sendable (Interruption) -> Void = { _ in }) {
        self.configuration = configuration
        self.keeper = keeper
        self.onInterruption = onInterruption
    }

    /// Connects, exports the objects and takes the name. Throws ``ProviderStartError/nameTaken(_:)``
    /// when another process owns the name and keeps it (without ``Configuration/replace``, or
    /// when it does not allow replacement).
    package func start() throws(ProviderStartError) {
        let configuration = configuration, keeper = keeper, loop = loop, onInterruption = onInterruption
        try loop.start(name: "coffer-secret-service", setUp: { () throws(ProviderStartError) -> SecretServiceObjects in
            guard let address = configuration.busAddress ?? SessionBusAddress.find() else {
                throw .noSessionBus(SessionBusAddress.missing)
            }
            let bus = try BusConnection(address: address)
            let registry = CollectionRegistry(
                loginVault: configuration.loginVault, keeper: keeper, lifetime: configuration.unlockLifetime,
                upstream: configuration.upstream.map(UpstreamItems.init))
            let objects = SecretServiceObjects(bus: bus, registry: registry, prompter: configuration.prompter, loop: loop)
            do throws(DBusError) {
                try objects.exportObjects()
            } catch {
                objects.unexportAll()
                throw .busRefused(error.message)
            }
            guard try bus.requestName(Self.busName, replace: configuration.replace) == .owned else {
                objects.unexportAll()
                throw .nameTaken(Self.takenMessage(bus, replace: configuration.replace))
            }
            bus.subscribeToBus("NameLost") { arguments in
                guard arguments.isOfType("(s)"), arguments.child(0).string == Self.busName else { return }
                objects.unexportAll()
                onInterruption(.nameLost)
            }
            bus.whenClosedByBus {
                objects.unexportAll()
                onInterruption(.busClosed)
            }
            return objects
        }, tearDown: { objects in
            // Closing the connection releases the name (no NameLost reaches a closed connection).
            objects.unexportAll()
            objects.bus.close()
        })
    }

    /// Whether this process must start again with `G_SLICE=always-malloc` before it serves: with
    /// GLib before 2.76 (Debian 12 has 2.74), whose slice allocator would keep for good the
    /// memory a client's large message took, where `malloc` gives it back (``LargeCallMemory``).
    /// GLib reads `G_SLICE` as it loads, before `main`, so setting it later does nothing.
    package static var needsSystemAllocator: Bool {
        let alreadySet = getenv("G_SLICE").map { String(cString: $0).contains("always-malloc") } ?? false
        return !alreadySet && glib_check_version(2, 76, 0) != nil
    }

    /// How many sessions are open, asked of the main loop; `nil` when it does not answer
    /// within a second (it has stopped).
    package func openSessionCount() -> Int? {
        let count = Guarded<Int?>(nil)
        let answered = DispatchSemaphore(value: 0)
        loop.perform { objects in
            count.withLock { $0 = objects.sessions.count }
            answered.signal()
        }
        guard answered.wait(timeout: .now() + 1) == .success else { return nil }
        return count.withLock { $0 }
    }

    /// Releases the name and stops serving; waits until it has.
    package func stop() {
        loop.quit()
    }

    private static func takenMessage(_ bus: BusConnection, replace: Bool) -> String {
        var owner = "another process"
        if let found = bus.owner(of: busName) {
            let name = found.pid.flatMap { try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8) }?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            owner = "\(name ?? "a process") (\(found.uniqueName)\(found.pid.map { ", pid \($0)" } ?? ""))"
        }
        return replace
            ? "\(owner) owns \(busName) and does not let it be replaced; stop it first"
            : "\(owner) already owns \(busName); stop it, or pass --replace to take the name over"
    }
}
