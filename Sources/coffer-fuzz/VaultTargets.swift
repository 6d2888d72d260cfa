import Coffer

extension FuzzTarget {
    /// An item's sealed plaintext, through the store's one strict decoder.
    static let itemRecord = FuzzTarget(name: "item-record") { bytes in
        _ = try? ItemRecord.decode(bytes)
    }

    /// A `key_slots` row's columns (``SlotColumns``), through the checks every read applies.
    static let slotRow = FuzzTarget(name: "slot-row") { bytes in
        let row = SlotColumns(bytes)
        _ = try? SlotRow.validated(
            id: 1, kind: row.kind, kdf: row.kdf, opslimit: row.opslimit, memlimit: row.memlimit,
            salt: row.salt, wrappedKey: row.wrappedKey, created: 0)
    }
}
