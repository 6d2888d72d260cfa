import Foundation

/// The plaintext inside an item's sealed record (format version 3; version 2's lacks the owner
/// and the access list, version 1's also the attribute item class and the content type).
///
/// `u8(class)` then fields `u8(tag) || u32be(length) || value`, tags strictly ascending,
/// except that `custom` (0x20) repeats, sorted by name, and `allowed` (0x31) repeats, sorted by
/// its bytes. Dates are `i64be` milliseconds since the Unix epoch. docs/vault-format.md has the
/// full table.
package enum ItemRecord {
    enum Tag: UInt8 {
        case service = 0x01, account = 0x02, secret = 0x03, created = 0x04, modified = 0x05
        case expiresAt = 0x06, label = 0x07, comment = 0x08, contentType = 0x09
        case `protocol` = 0x10, port = 0x11, path = 0x12, authenticationType = 0x13
        case custom = 0x20
        case owner = 0x30, allowed = 0x31
    }

    package static func encode(_ attributes: ItemAttributes, secret: some Collection<UInt8>, access: ItemAccess = .unowned) -> [UInt8] {
        var out: [UInt8] = [attributes.id.itemClass.rawValue]
        out.reserveCapacity(secret.count + 128)
        func field(_ tag: Tag, _ value: some Collection<UInt8>) { TaggedFields.append(tag.rawValue, value, to: &out) }
        func text(_ tag: Tag, _ value: String?) {
            if let value { field(tag, Normalization.nfc(value).utf8) }
        }
        func date(_ tag: Tag, _ value: Date?) {
            // ItemOptions.validate has refused dates that do not fit; the clock's dates always do.
            if let value { field(tag, bigEndianBytes(milliseconds(value) ?? Int64.max)) }
        }
        text(.service, attributes.id.service)
        text(.account, attributes.id.account)
        field(.secret, secret)
        date(.created, attributes.created)
        date(.modified, attributes.modified)
        date(.expiresAt, attributes.expiresAt)
        text(.label, attributes.label)
        text(.comment, attributes.comment)
        text(.contentType, attributes.contentType)
        if let internet = attributes.internet {
            text(.protocol, internet.protocol)
            if let port = internet.port { field(.port, bigEndianBytes(UInt16(port))) }
            text(.path, internet.path)
            text(.authenticationType, internet.authenticationType)
        }
        let custom = attributes.custom.map { (Normalization.nfcBytes($0.key), Normalization.nfcBytes($0.value)) }
        for (name, value) in custom.sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
            field(.custom, lengthPrefixed(name) + value)
        }
        appendAccess(access, to: &out)
        return out
    }

    /// The owner and access-list fields, the last of a record.
    private static func appendAccess(_ access: ItemAccess, to out: inout [UInt8]) {
        if let owner = access.owner { TaggedFields.append(Tag.owner.rawValue, owner.encoded, to: &out) }
        for program in access.allowed { TaggedFields.append(Tag.allowed.rawValue, program.encoded, to: &out) }
    }

    /// A record decoded by ``decode(_:)``.
    package struct Decoded {
        package let attributes: ItemAttributes
        /// A slice of the plaintext, so the caller decides whether to copy it.
        package let secret: ArraySlice<UInt8>
        /// The item's owner and access list (format version 3).
        package let access: ItemAccess
        /// The blind-index input of the stored class, service and account bytes exactly as
        /// stored: the row key recomputed from it must equal the row's (docs/vault-format.md, 5.3).
        let indexInput: [UInt8]
    }

    /// Decodes a whole record, enforcing every rule of docs/vault-format.md section 5.3: the one
    /// decoder of every read. Throws ``CofferError/integrityFailure`` for a plaintext that breaks
    /// any of them, since only the record's own item is affected.
    package static func decode(_ bytes: [UInt8]) throws(CofferError) -> Decoded {
        guard let first = bytes.first, let itemClass = ItemClass(rawValue: first) else { throw malformed }
        var reader = TaggedFields.Reader(bytes.dropFirst(), repeatable: [Tag.custom.rawValue, Tag.allowed.rawValue])
        var service: ArraySlice<UInt8>?, account: ArraySlice<UInt8>?, secret: ArraySlice<UInt8>?
        var created: Date?, modified: Date?, expiresAt: Date?, label: String?, comment: String?, contentType: String?
        var internet = InternetAttributes()
        var custom: [String: String] = [:]
        var lastCustomName: ArraySlice<UInt8>?
        var owner: Program?, allowed: [Program] = [], lastAllowed: ArraySlice<UInt8>?
        while let (rawTag, value) = try reader.next() {
            guard let tag = Tag(rawValue: rawTag) else { throw malformed }
            switch tag {
            case .service: service = try nameBytes(value)
            case .account: account = try nameBytes(value)
            case .secret:
                guard value.count <= Limits.maxSecretBytes else { throw malformed }
                secret = value
            case .created: created = try date(value)
            case .modified: modified = try date(value)
            case .expiresAt: expiresAt = try date(value)
            case .label: label = try text(value)
            case .comment: comment = try text(value)
            case .contentType: contentType = try text(value)
            case .protocol, .port, .path, .authenticationType:
                guard itemClass == .internetPassword else { throw malformed }
                switch tag {
                case .protocol: internet.protocol = try text(value)
                case .port:
                    guard value.count == 2 else { throw malformed }
                    internet.port = Int(value[value.startIndex]) << 8 | Int(value[value.startIndex + 1])
                case .path: internet.path = try text(value)
                default: internet.authenticationType = try text(value)
                }
            case .custom:
                guard value.count >= 4, custom.count < Limits.maxCustomAttributes else { throw malformed }
                let nameLength = Int(try uint32(value.prefix(4)))
                guard nameLength <= value.count - 4, nameLength <= Limits.maxAttributeNameBytes else { throw malformed }
                let name = value.dropFirst(4).prefix(nameLength)
                if let lastCustomName, !lastCustomName.lexicographicallyPrecedes(name) { throw malformed }
                lastCustomName = name
                custom[try string(name)] = try text(value.dropFirst(4 + nameLength))
            case .owner: owner = try Program.decode(value)
            case .allowed:
                guard allowed.count < ItemAccess.maxAllowed else { throw malformed }
                if let lastAllowed, !lastAllowed.lexicographicallyPrecedes(value) { throw malformed }
                lastAllowed = value
                allowed.append(try Program.decode(value))
            }
        }
        guard let service, let account, let secret, let created, let modified else { throw malformed }
        // An attribute item's service is its identifier and its account is empty.
        if itemClass == .attributeItem, !account.isEmpty { throw malformed }
        let id = ItemID(itemClass: itemClass, service: try string(service), account: try string(account))
        let attributes = ItemAttributes(
            id: id, label: label, comment: comment, custom: custom, created: created, modified: modified,
            expiresAt: expiresAt, internet: internet.isEmpty ? nil : internet, contentType: contentType)
        return Decoded(
            attributes: attributes, secret: secret, access: ItemAccess(owner: owner, allowed: allowed),
            indexInput: VaultFormat.blindIndexInput(itemClass: itemClass, service: service, account: account))
    }

    /// `plaintext` (a record that ``decode(_:)`` accepts) with its owner and access list
    /// replaced by `access`, every other byte as it was: they are its last fields.
    static func replacingAccess(in plaintext: [UInt8], with access: ItemAccess) throws(CofferError) -> [UInt8] {
        var reader = TaggedFields.Reader(plaintext.dropFirst(), repeatable: [Tag.custom.rawValue, Tag.allowed.rawValue])
        var end = reader.position
        while let (tag, _) = try reader.next(), tag < Tag.owner.rawValue { end = reader.position }
        var out = Array(plaintext[..<end])
        appendAccess(access, to: &out)
        return out
    }

    /// The item named by a blind-index input (docs/vault-format.md, 5.1), as an audit entry
    /// stores it: a known class, names of valid UTF-8 within ``Limits/maxNameBytes`` filling
    /// the value exactly, and no account for an attribute item.
    static func itemID(fromIndexInput value: ArraySlice<UInt8>) throws(CofferError) -> ItemID {
        guard value.count >= 9, let itemClass = ItemClass(rawValue: value[value.startIndex]) else { throw malformed }
        let serviceLength = Int(try uint32(value.dropFirst().prefix(4)))
        guard serviceLength <= value.count - 9 else { throw malformed }
        let service = value.dropFirst(5).prefix(serviceLength)
        let accountLength = Int(try uint32(value.dropFirst(5 + serviceLength).prefix(4)))
        let account = value.dropFirst(9 + serviceLength)
        guard accountLength == account.count, itemClass != .attributeItem || account.isEmpty else { throw malformed }
        return ItemID(itemClass: itemClass, service: try string(try nameBytes(service)), account: try string(try nameBytes(account)))
    }

    /// A date as the record stores it: whole milliseconds since the Unix epoch, or `nil` when
    /// the date is too far from 1970 to fit (about ±292 million years).
    static func milliseconds(_ date: Date) -> Int64? {
        Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    private static let malformed = CofferError.integrityFailure

    private static func string(_ value: ArraySlice<UInt8>) throws(CofferError) -> String {
        guard let text = String(validating: value, as: UTF8.self) else { throw malformed }
        return text
    }

    /// A service, server or account: valid UTF-8 within ``Limits/maxNameBytes``, kept as bytes.
    private static func nameBytes(_ value: ArraySlice<UInt8>) throws(CofferError) -> ArraySlice<UInt8> {
        guard value.count <= Limits.maxNameBytes else { throw malformed }
        return value
    }

    /// A label, comment, internet attribute or custom value, within ``Limits/maxTextBytes``.
    private static func text(_ value: ArraySlice<UInt8>) throws(CofferError) -> String {
        guard value.count <= Limits.maxTextBytes else { throw malformed }
        return try string(value)
    }

    private static func uint32(_ value: ArraySlice<UInt8>) throws(CofferError) -> UInt32 {
        guard value.count == 4 else { throw malformed }
        return value.reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func date(_ value: ArraySlice<UInt8>) throws(CofferError) -> Date {
        guard value.count == 8 else { throw malformed }
        let millis = Int64(bitPattern: value.reduce(0) { $0 << 8 | UInt64($1) })
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}
