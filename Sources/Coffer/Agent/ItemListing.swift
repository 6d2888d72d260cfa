import CofferBase

/// `coffer list`'s text: one line an item, with its class (`generic`, `internet` or
/// `attribute`), service, account and label separated by tabs, each escaped
/// (``TerminalText/escaped(_:)``) so that every item is one line. The full program writes it
/// for the items it lists; the agent writes it for the thin `coffer list` (`listing`).
package enum ItemListing {
    /// The lines for `items`, in their order.
    package static func text(_ items: [ItemAttributes]) -> String {
        items.map { item in
            [className(item.id.itemClass), item.id.service, item.id.account, item.label ?? ""].map(TerminalText.escaped).joined(separator: "\t") + "\n"
        }.joined()
    }

    /// The class as the text listings show it: `generic`, `internet` or `attribute`.
    package static func className(_ itemClass: ItemClass) -> String {
        switch itemClass {
        case .genericPassword: "generic"
        case .internetPassword: "internet"
        case .attributeItem: "attribute"
        }
    }
}
