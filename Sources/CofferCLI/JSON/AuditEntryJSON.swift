import Coffer
import FoundationEssentials

/// One entry of `coffer access log --json`: `time`, `program` (left out when it could not be
/// identified), `frontDoor`, `action`, `item` (`class`, `service`, `account`; left out for a
/// listing or a policy change) and `decision`.
struct AuditEntryJSON: Encodable {
    struct ItemJSON: Encodable {
        let itemClass: String
        let service: String
        let account: String

        enum CodingKeys: String, CodingKey {
            case itemClass = "class", service, account
        }
    }

    let time: Date
    let program: ProgramJSON?
    let frontDoor: String
    let action: String
    let item: ItemJSON?
    let decision: String

    init(_ entry: AuditEntry) {
        time = entry.time
        program = entry.program.map(ProgramJSON.init)
        frontDoor = entry.frontDoor.rawValue
        action = entry.action.rawValue
        item = entry.item.map { ItemJSON(itemClass: ItemSummary.className($0.itemClass), service: $0.service, account: $0.account) }
        decision = entry.decision.rawValue
    }
}
