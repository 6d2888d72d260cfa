import Coffer
import Foundation

/// How a Secret Service item is a vault item (docs/secret-service.md, "Serving the Secret
/// Service"):
///
/// - Attributes with `service` and `username` make a generic password of that service and
///   account: the convention of `secret-tool`, python-keyring and go-keyring, so `coffer get`
///   reads what they store and they read what `coffer set` stores.
/// - An internet password (set with the CLI) stays one while its attributes keep `server`,
///   `user` and a decimal `port` if any.
/// - Any other item is an attribute item: a random identifier, known by its attributes alone.
/// - The other attributes are the item's custom attributes; the label is its label; the
///   content type is kept with the secret.
package enum ItemMapping {
    /// The default content type, when an item has none (an item set with the CLI).
    static let defaultContentType = "text/plain"

    /// The identity an item with `attributes` gets; `current` is the item's identity before a
    /// change of attributes, so an attribute item keeps its identifier.
    package static func identity(for attributes: [String: String], current: ItemID?) -> ItemID {
        if let service = attributes[AttributeName.service], let account = attributes[AttributeName.username] {
            return .genericPassword(service: service, account: account)
        }
        if current?.itemClass == .internetPassword, let server = attributes[AttributeName.server],
           let account = attributes[AttributeName.user], internet(from: attributes) != nil {
            return .internetPassword(server: server, account: account)
        }
        if let current, current.itemClass == .attributeItem { return current }
        return .newAttributeItem()
    }

    /// The vault options of an item with `id`, `attributes`, `label` and `contentType`. What the
    /// Secret Service has no words for (comment, expiry) is kept from `previous`.
    package static func options(
        for id: ItemID, attributes: [String: String], label: String, contentType: String, previous: ItemOptions?
    ) -> ItemOptions {
        var custom = attributes
        var internet: InternetAttributes?
        switch id.itemClass {
        case .genericPassword:
            custom[AttributeName.service] = nil
            custom[AttributeName.username] = nil
        case .internetPassword:
            internet = Self.internet(from: attributes)
            for name in [AttributeName.server, AttributeName.user, AttributeName.protocol, AttributeName.port, AttributeName.object, AttributeName.authtype] {
                custom[name] = nil
            }
        case .attributeItem:
            break
        }
        return ItemOptions(
            label: label.isEmpty ? nil : label, comment: previous?.comment, custom: custom, expiresAt: previous?.expiresAt,
            internet: internet, contentType: contentType == defaultContentType ? nil : contentType)
    }

    /// The internet attributes an internet password keeps, or `nil` when `port` is not the
    /// decimal form of a port (it would not read back as it was written).
    static func internet(from attributes: [String: String]) -> InternetAttributes? {
        var port: Int?
        if let text = attributes[AttributeName.port] {
            guard let number = Int(text), (0...65535).contains(number), String(number) == text else { return nil }
            port = number
        }
        return InternetAttributes(
            protocol: attributes[AttributeName.protocol], port: port, path: attributes[AttributeName.object],
            authenticationType: attributes[AttributeName.authtype])
    }

    /// Attributes in Unicode NFC, as the vault keeps and compares them.
    package static func normalized(_ attributes: [String: String]) -> [String: String] {
        Dictionary(attributes.map { (nfc($0.key), nfc($0.value)) }) { first, _ in first }
    }

    /// `text` in NFC. ASCII text is NFC already, and most attributes are ASCII: they skip
    /// Foundation's normalization, which showed in a profile of every `SearchItems`.
    private static func nfc(_ text: String) -> String {
        text.utf8.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping
    }

    /// An item's content type as it was stored (``defaultContentType`` when none was given).
    static func contentType(of attributes: ItemAttributes) -> String {
        attributes.contentType ?? defaultContentType
    }

    /// An item's content type as `GetSecret` and `GetSecrets` answer it: `text/plain` with
    /// parameters (`text/plain; charset=utf8`, go-keyring's) is `text/plain`, as gnome-keyring
    /// answers, because libsecret reads a password only from exactly `text/plain`. Any other type
    /// is answered as stored (gnome-keyring answers `text/plain` for every secret; a binary one
    /// stays `application/octet-stream` here).
    static func servedContentType(of attributes: ItemAttributes) -> String {
        guard let stored = attributes.contentType else { return defaultContentType }
        let mediaType = stored.split(separator: ";", maxSplits: 1).first.map(String.init) ?? stored
        let isPlainText = mediaType.trimmingCharacters(in: .whitespaces).lowercased() == defaultContentType
        return isPlainText ? defaultContentType : stored
    }
}
