import FoundationEssentials

/// How a Coffer item maps onto a Secret Service item. docs/secret-service.md is the reference.
///
/// - A generic password follows the convention of `secret-tool`, python-keyring, keyring-rs
///   and go-keyring: `service` and `username`, plus `application` and
///   `xdg:schema = org.freedesktop.Secret.Generic`.
/// - An internet password follows libsecret's network-password schema
///   (`org.gnome.keyring.NetworkPassword`): `server`, `user`, `protocol`, `port`,
///   `object` (the path) and `authtype`.
/// - The label is the item's label, or a readable default that reads back as `nil`.
/// - The comment and the expiry are the attributes `coffer:comment` and `coffer:expires-at`
///   (milliseconds since 1970); custom attributes are attributes of their own name.
/// - `created` and `modified` are the daemon's own item times (whole seconds).
///
/// Items are found by their two name attributes alone, without `xdg:schema` or `application`,
/// so items that other tools stored are found too. Every string is stored in Unicode NFC.
enum SecretServiceItemFormat {
    static let genericSchema = "org.freedesktop.Secret.Generic"
    static let networkSchema = "org.gnome.keyring.NetworkPassword"

    enum Key {
        static let schema = "xdg:schema"
        static let application = "application"
        static let service = AttributeName.service
        static let username = AttributeName.username
        static let server = AttributeName.server
        static let user = AttributeName.user
        static let `protocol` = AttributeName.protocol
        static let port = AttributeName.port
        static let object = AttributeName.object
        static let authtype = AttributeName.authtype
        static let comment = "coffer:comment"
        static let expiresAt = "coffer:expires-at"
    }

    /// Attribute names a custom attribute may not take: the ones above and any `xdg:` or `coffer:` name.
    static let reservedNames: Set<String> = [
        Key.schema, Key.application, Key.service, Key.username, Key.server, Key.user,
        Key.protocol, Key.port, Key.object, Key.authtype,
    ]

    static func isReserved(_ name: String) -> Bool {
        reservedNames.contains(name) || name.hasPrefix("xdg:") || name.hasPrefix("coffer:")
    }

    /// The attributes that hold an item's service (or server) and account; `nil` for an
    /// attribute item, which only a vault holds (a Secret Service item that lacks these names
    /// is no Coffer item here).
    static func nameKeys(_ itemClass: ItemClass) -> (service: String, account: String)? {
        switch itemClass {
        case .genericPassword: (Key.service, Key.username)
        case .internetPassword: (Key.server, Key.user)
        case .attributeItem: nil
        }
    }

    /// The attributes that find the item `id`; `nil` for an attribute item.
    static func identity(_ id: ItemID) -> [String: String]? {
        guard let keys = nameKeys(id.itemClass) else { return nil }
        return [keys.service: Normalization.nfc(id.service), keys.account: Normalization.nfc(id.account)]
    }

    /// One search per item class the query can select. Its results still go through
    /// ``ItemQuery/matches(_:)``, which has the final word.
    static func searches(for query: ItemQuery) -> [(itemClass: ItemClass, attributes: [String: String])] {
        let classes = query.itemClass.map { [$0] } ?? ItemClass.allCases
        return classes.compactMap { itemClass in
            guard let keys = nameKeys(itemClass) else { return nil }
            var attributes = normalized(query.custom)
            if let service = query.service { attributes[keys.service] = Normalization.nfc(service) }
            if let account = query.account { attributes[keys.account] = Normalization.nfc(account) }
            return (itemClass, attributes)
        }
    }

    /// What the Secret Service cannot hold beyond ``ItemOptions``'s own checks: NUL characters
    /// (D-Bus strings end at NUL) and custom attributes with reserved names.
    static func validate(_ id: ItemID, _ options: ItemOptions) throws(CofferError) {
        guard nameKeys(id.itemClass) != nil else {
            throw .invalidArgument(reason: "attribute items live only in a vault; the Secret Service store keeps generic and internet passwords")
        }
        let internet = options.internet
        let texts = [id.service, id.account, options.label, options.comment, internet?.protocol, internet?.path,
                     internet?.authenticationType].compactMap { $0 } + Array(options.custom.keys) + Array(options.custom.values)
        guard !texts.contains(where: { $0.utf8.contains(0) }) else {
            throw .invalidArgument(reason: "the Secret Service cannot store text containing NUL characters")
        }
        guard !options.custom.keys.contains(where: isReserved) else {
            throw .invalidArgument(
                reason: "custom attribute names \(reservedNames.sorted().joined(separator: ", ")), xdg:* and coffer:* are reserved in the Secret Service")
        }
    }

    /// Every attribute of the item `id` set with `options`.
    static func attributes(for id: ItemID, options: ItemOptions, application: String) -> [String: String] {
        var attributes = normalized(options.custom)
        attributes.merge(identity(id) ?? [:]) { _, name in name }
        attributes[Key.application] = application
        if let comment = options.comment { attributes[Key.comment] = Normalization.nfc(comment) }
        if let expiresAt = options.expiresAt, let milliseconds = ItemRecord.milliseconds(expiresAt) {
            attributes[Key.expiresAt] = String(milliseconds)
        }
        switch id.itemClass {
        case .genericPassword:
            attributes[Key.schema] = genericSchema
        case .attributeItem:
            break  // refused by validate(_:_:)
        case .internetPassword:
            attributes[Key.schema] = networkSchema
            let internet = options.internet ?? InternetAttributes()
            if let value = internet.protocol { attributes[Key.protocol] = Normalization.nfc(value) }
            if let port = internet.port { attributes[Key.port] = String(port) }
            if let value = internet.path { attributes[Key.object] = Normalization.nfc(value) }
            if let value = internet.authenticationType { attributes[Key.authtype] = Normalization.nfc(value) }
        }
        return attributes
    }

    /// The item's label: its own, or a readable default.
    static func label(for id: ItemID, options: ItemOptions) -> String {
        options.label.map(Normalization.nfc) ?? defaultLabel(for: id)
    }

    static func defaultLabel(for id: ItemID) -> String {
        "Password for '\(Normalization.nfc(id.account))' on '\(Normalization.nfc(id.service))'"
    }

    /// The Coffer view of a Secret Service item found by a search for `itemClass`, or `nil`
    /// when it lacks that class's name attributes.
    static func decode(_ item: SecretServiceItem, as itemClass: ItemClass) -> ItemAttributes? {
        let attributes = item.attributes
        guard let keys = nameKeys(itemClass), let service = attributes[keys.service], let account = attributes[keys.account] else { return nil }
        let id = ItemID(itemClass: itemClass, service: service, account: account)
        var internet: InternetAttributes?
        if itemClass == .internetPassword {
            let port = attributes[Key.port].flatMap { Int($0) }.flatMap { (0...65535).contains($0) ? $0 : nil }
            let value = InternetAttributes(
                protocol: attributes[Key.protocol], port: port, path: attributes[Key.object],
                authenticationType: attributes[Key.authtype])
            internet = value.isEmpty ? nil : value
        }
        return ItemAttributes(
            id: id,
            label: item.label.isEmpty || item.label == defaultLabel(for: id) ? nil : item.label,
            comment: attributes[Key.comment],
            custom: attributes.filter { !isReserved($0.key) },
            created: item.created, modified: item.modified,
            expiresAt: attributes[Key.expiresAt].flatMap { Int64($0) }.map { Date(timeIntervalSince1970: Double($0) / 1000) },
            internet: internet)
    }

    private static func normalized(_ attributes: [String: String]) -> [String: String] {
        Dictionary(attributes.map { (Normalization.nfc($0.key), Normalization.nfc($0.value)) }) { first, _ in first }
    }
}
