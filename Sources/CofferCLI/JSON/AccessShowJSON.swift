import Coffer

/// `coffer access show --json`: the item, its owner (left out for an item from before owners
/// were kept), its access list and the vault's policy.
struct AccessShowJSON: Encodable {
    let itemClass: String
    let service: String
    let account: String
    let owner: ProgramJSON?
    let allowed: [ProgramJSON]
    let policy: String

    enum CodingKeys: String, CodingKey {
        case itemClass = "class", service, account, owner, allowed, policy
    }

    init(item: ItemID, access: ItemAccess, policy: AccessPolicy) {
        itemClass = ItemSummary.className(item.itemClass)
        service = item.service
        account = item.account
        owner = access.owner.map(ProgramJSON.init)
        allowed = access.allowed.map(ProgramJSON.init)
        self.policy = policy.rawValue
    }
}
