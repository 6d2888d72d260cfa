import Coffer

/// One item in `import --json`.
struct ImportedItemJSON: Encodable {
    let itemClass: String
    let service: String
    let account: String
    let outcome: ItemImport.Outcome

    enum CodingKeys: String, CodingKey {
        case itemClass = "class", service, account, outcome
    }

    init(_ entry: ItemImport.Entry) {
        itemClass = ItemSummary.className(entry.id.itemClass)
        service = entry.id.service
        account = entry.id.account
        outcome = entry.outcome
    }
}
