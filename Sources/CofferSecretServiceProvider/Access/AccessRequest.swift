import Coffer

/// An item `Unlock` was asked for that the caller may not read now: its prompt asks the person
/// (``SecretServiceObjects/runAccessPrompt(_:for:)``).
struct AccessRequest: Sendable {
    /// The item's path, as the client named it (the prompt's result reports it so).
    let path: String
    let collection: ServedCollection
    let id: ItemID
    let rowKey: [UInt8]
}
