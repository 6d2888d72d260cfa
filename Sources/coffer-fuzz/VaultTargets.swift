import Coffer

extension FuzzTarget {
    /// An item's sealed plaintext, through the store's one strict decoder.
    static let itemRecord = FuzzTarget(name: "item-record") { bytes in
        _ = try? ItemRecord.decode(bytes)
    }

    /// An audit-log entry's plaintext (docs/vault-format.md, 8.2). Invariant: an entry that
    /// decodes can be appended again (it passes the writer's checks).
    static let auditEntry = FuzzTarget(name: "audit-entry") { bytes in
        guard let entry = try? AuditEntry.decode(bytes) else { return }
        precondition((try? entry.validate()) != nil, "a decoded audit entry fails the writer's checks")
    }

    /// A `key_slots` row's columns (``SlotColumns``), through the checks every read applies.
    static let slotRow = FuzzTarget(name: "slot-row") { bytes in
        let row = SlotColumns(bytes)
        _ = try? SlotRow.validated(
            id: 1, kind: row.kind, kdf: row.kdf, opslimit: row.opslimit, memlimit: row.memlimit,
            salt: row.salt, wrappedKey: row.wrappedKey, created: 0)
    }
}
