import CofferBase
import Coffer
import FoundationEssentials

/// The vaults the agent holds unlocked, each until its lifetime ends or it sits unused for the
/// idle timeout; vaults held from the start (`agent start --hold`) stay until `lock` or stop.
/// Forgetting a vault drops it, and with it the only reference to its keys, which
/// `sodium_free` zeroes. Also the vaults `--hold` named but could not open, with the reason.
package final class HeldVaults: Sendable {
    /// Whom a vault is held for.
    package enum Holder: Sendable {
        /// The socket's clients: `coffer unlock`, `agent start --hold`.
        case socketClients
        /// Another front end of the agent process, which unlocked it for its own clients (the
        /// Secret Service, after a prompt).
        case frontEnd
    }

    private struct Entry {
        let vault: Vault
        let unlockedAt: Date
        /// `nil`: held until forgotten, whatever the idle timeout.
        let expiresAt: Date?
        var lastUse: Date
        let holder: Holder

        func isLive(at now: Date, idleTimeout: TimeInterval) -> Bool {
            guard let expiresAt else { return true }
            return now < expiresAt && now.timeIntervalSince(lastUse) < idleTimeout
        }
    }

    private let entries = Guarded<[String: Entry]>([:])
    private let failures = Guarded<[String: String]>([:])
    let idleTimeout: TimeInterval
    let now: @Sendable () -> Date

    package init(idleTimeout: TimeInterval, now: @escaping @Sendable () -> Date = { Date() }) {
        self.idleTimeout = idleTimeout
        self.now = now
    }

    /// Holds `vault` for `lifetime`, or until forgotten when `lifetime` is `nil`, for `holder`.
    package func hold(_ vault: Vault, at path: String, for lifetime: TimeInterval?, holder: Holder = .socketClients) {
        let now = now()
        entries.withLock {
            $0[path] = Entry(vault: vault, unlockedAt: now, expiresAt: lifetime.map(now.addingTimeInterval), lastUse: now, holder: holder)
        }
        failures.withLock { _ = $0.removeValue(forKey: path) }
    }

    /// Notes that `agent start --hold` could not open the vault at `path`, and why (one line).
    package func recordFailure(_ message: String, at path: String) {
        failures.withLock { $0[path] = message }
    }

    /// The vaults `--hold` could not open, by path.
    package var holdFailures: [HoldFailure] {
        failures.withLock { $0.sorted { $0.key < $1.key }.map { HoldFailure(path: $0.key, message: $0.value) } }
    }

    /// The vault held for `path`, when it is still within its lifetime and idle timeout.
    package func use(_ path: String) -> Vault? {
        let now = now()
        return entries.withLock { entries in
            guard var entry = entries[path] else { return nil }
            guard entry.isLive(at: now, idleTimeout: idleTimeout) else {
                entries[path] = nil
                return nil
            }
            entry.lastUse = now
            entries[path] = entry
            return entry.vault
        }
    }

    package func forget(_ path: String) {
        entries.withLock { _ = $0.removeValue(forKey: path) }
    }

    package func forgetAll() {
        entries.withLock { $0.removeAll() }
    }

    /// Forgets the vaults a front end unlocked for its own clients (its clients are gone).
    package func forgetFrontEndVaults() {
        entries.withLock { entries in entries = entries.filter { $0.value.holder == .socketClients } }
    }

    /// Whether a vault is held for the socket's clients, within its lifetime and idle timeout.
    package var holdsVaultsForSocketClients: Bool {
        let now = now()
        return entries.withLock { entries in
            entries.values.contains { $0.holder == .socketClients && $0.isLive(at: now, idleTimeout: idleTimeout) }
        }
    }

    /// Forgets every vault past its lifetime or idle timeout.
    package func expire() {
        let now = now()
        entries.withLock { entries in
            entries = entries.filter { $0.value.isLive(at: now, idleTimeout: idleTimeout) }
        }
    }

    package var status: [HeldVaultStatus] {
        entries.withLock { entries in
            entries.sorted { $0.key < $1.key }.map {
                HeldVaultStatus(path: $0.key, vaultID: $0.value.vault.id, unlockedAt: $0.value.unlockedAt,
                                expiresAt: $0.value.expiresAt, lastUse: $0.value.lastUse)
            }
        }
    }
}
