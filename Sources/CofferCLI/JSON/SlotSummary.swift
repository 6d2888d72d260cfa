import Coffer
import FoundationEssentials

/// One key slot as `slots` and `doctor` print it, in text or JSON: id, kind, what its kind adds
/// (``SlotKindListing``) and creation time.
struct SlotSummary: Encodable {
    let id: Int
    /// passphrase, keyfile, key, secret-service, systemd-creds, or the name of a kind this
    /// version does not know.
    let kind: String
    let details: SlotDetails?
    let created: Date

    init(_ slot: KeySlot) {
        id = slot.id
        kind = slot.kindName
        details = SlotKindListings.details(of: slot)
        created = slot.created
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(id, forKey: Key("id"))
        try container.encode(kind, forKey: Key("kind"))
        if let details { try container.encode(details.value, forKey: Key(details.member)) }
        try container.encode(created, forKey: Key("created"))
    }
}
