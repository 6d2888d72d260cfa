import Coffer
import FoundationEssentials

/// `get --json`: the item's attributes as `list --json` prints them, plus `secret`, its bytes in base64.
struct SecretItemJSON: Encodable {
    let attributes: ItemSummary
    let secret: String

    init(_ item: Item) {
        attributes = ItemSummary(item.attributes)
        secret = item.secret.base64EncodedString()
    }

    private enum CodingKeys: String, CodingKey {
        case secret
    }

    func encode(to encoder: Encoder) throws {
        try attributes.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(secret, forKey: .secret)
    }
}
