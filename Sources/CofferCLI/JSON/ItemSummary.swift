import Coffer
import FoundationEssentials

/// One item in `list --json` and `get --json`: every attribute, never the secret (`get` adds it).
struct ItemSummary: Encodable {
    let itemClass: String
    let service: String
    let account: String
    let label: String?
    let comment: String?
    let attributes: [String: String]
    let created: Date
    let modified: Date
    let expiresAt: Date?
    let internet: InternetAttributes?

    enum CodingKeys: String, CodingKey {
        case itemClass = "class", service, account, label, comment, attributes, created, modified, expiresAt, internet
    }

    /// The `class` field's value: `genericPassword`, `internetPassword` or `attributeItem`.
    static func className(_ itemClass: ItemClass) -> String {
        switch itemClass {
        case .genericPassword: "genericPassword"
        case .internetPassword: "internetPassword"
        case .attributeItem: "attributeItem"
        }
    }

    init(_ item: ItemAttributes) {
        itemClass = Self.className(item.id.itemClass)
        service = item.id.service
        account = item.id.account
        label = item.label
        comment = item.comment
        attributes = item.custom
        created = item.created
        modified = item.modified
        expiresAt = item.expiresAt
        internet = item.internet
    }
}
