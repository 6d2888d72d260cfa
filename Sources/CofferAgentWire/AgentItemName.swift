/// An item's identity on the wire: `class || u32be(len) || service || u32be(len) || account`
/// (docs/agent.md, section 3).
package enum AgentItemName {
    /// The field's bytes for the item of class byte `itemClass` (``AgentItemClass``).
    package static func encode(itemClass: UInt8, service: String, account: String) -> [UInt8] {
        [itemClass] + bigEndian(UInt32(service.utf8.count)) + Array(service.utf8)
            + bigEndian(UInt32(account.utf8.count)) + Array(account.utf8)
    }
}

/// The class bytes of items on the wire, as in the vault's records (docs/vault-format.md).
package enum AgentItemClass {
    package static let genericPassword: UInt8 = 1
    package static let internetPassword: UInt8 = 2
}
