import CofferBase
import FoundationEssentials

extension Vault {
    /// What ``readAudited(_:deciding:)`` found and did.
    package enum AuditedRead: Sendable {
        /// No such item (or it expired, and is purged): nothing decided or logged.
        case absent
        /// The item, read with the decision on it, whose audit entry is committed.
        case recorded(Item)
        /// The item and its owner and access list, for which `deciding` gave no entry: nothing logged.
        case undecided(Item, ItemAccess)
    }

    /// Reads the item `id` with its owner and access list and the vault's access policy, and
    /// appends the audit entry `deciding` makes of the access list and the policy, in one transaction committed (as
    /// ``appendAudit(_:)`` commits, without fsync) before this returns: the read and its entry
    /// are one snapshot, and the write lock is taken once. `deciding` returns `nil` when it
    /// cannot decide (the person would have to be asked): then nothing is written. Migrates an
    /// older vault to format version 3 before writing the entry.
    package func readAudited(
        _ id: ItemID, deciding: (ItemAccess, AccessPolicy) throws(CofferError) -> AuditEntry?
    ) throws(CofferError) -> AuditedRead {
        let now = configuration.now()
        return try withUnlockedKeys { connection, keys throws(CofferError) -> AuditedRead in
            var expired: (rowKey: [UInt8], sealed: [UInt8])?
            let read = try connection.withoutSyncOnCommit { () throws(CofferError) -> AuditedRead in
                try connection.transaction { () throws(CofferError) -> AuditedRead in
                    guard var opened = try openRecord(at: .item(id), connection, keys) else { return .absent }
                    defer { SecretMemory.zero(&opened.plaintext) }
                    let decoded = try checkedDecode(opened, keys)
                    guard !decoded.isExpired(at: now) else {
                        expired = (opened.rowKey, opened.sealed)
                        return .absent
                    }
                    let policy = try Self.formatVersion(connection) >= VaultFormat.accessVersion ? try readPolicy(connection, keys) : .open
                    guard let entry = try deciding(decoded.access, policy) else { return .undecided(decoded.item, decoded.access) }
                    try entry.validate()
                    try prepareItemWrite(connection, keys)
                    try insertAudit(entry, connection, keys)
                    return .recorded(decoded.item)
                }
            }
            if let expired { try Self.purge(expired.rowKey, expired.sealed, connection) }
            return read
        }
    }
}
