import Coffer
import Foundation

/// The vaults the agent holds unlocked, each until its lifetime ends or it sits unused for the
/// idle timeout. Forgetting a vault drops it, and with it the only reference to its keys, which
/// `sodium_free` zeroes.
package final class HeldVaults: Sendable {
    private struct Entry {
        let vault: Vault
        let unlockedAt: Date
        let expiresAt: Date
        var lastUse: Date
    }

    private let entries = Locked<[String: Entry]>([:])
    let idleTimeout: TimeInterval
    let now: @Sendable () -> Date

    package init(idleTimeout: TimeInterval, now: @escaping @Sendable () -> Date = { Date() }) {
        self.idleTimeout = idleTimeout
        self.now = now
    }

    package func hold(_ vault: Vault, at path: String, for lifetime: TimeInterval) {
        let now = now()
        entries.withLock { $0[path] = Entry(vault: vault, unlockedAt: now, expiresAt: now.addingTimeInterval(lifetime), lastUse: now) }
    }

    /// The vault held for `path`, when it is still within its lifetime and idle timeout.
    package func use(_ path: String) -> Vault? {
        let now = now()
        return entries.withLock { entries in
            guard var entry = entries[path] else { return nil }
            guard now < entry.expiresAt, now.timeIntervalSince(entry.lastUse) < idleTimeout else {
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

    /// Forgets every vault past its lifetime or idle timeout.
    package func expire() {
        let now = now()
        entries.withLock { entries in
            entries = entries.filter { now < $0.value.expiresAt && now.timeIntervalSince($0.value.lastUse) < idleTimeout }
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
