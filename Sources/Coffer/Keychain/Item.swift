import FoundationEssentials

/// An item: its attributes and its secret. `description` never shows the secret.
public struct Item: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// Everything about the item except its secret.
    public var attributes: ItemAttributes
    /// The secret bytes.
    public var secret: Data

    /// Creates an item value.
    public init(attributes: ItemAttributes, secret: Data) {
        self.attributes = attributes
        self.secret = secret
    }

    /// The secret as UTF-8 text.
    public func secretString() throws(CofferError) -> String {
        guard let text = String(validating: secret, as: UTF8.self) else { throw .notUTF8 }
        return text
    }

    public var description: String { "Item(\(attributes.id), secret: \(secret.count) bytes, redacted)" }
    public var customMirror: Mirror { Mirror(self, children: ["attributes": attributes]) }
}
