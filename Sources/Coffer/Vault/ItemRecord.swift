import Foundation

/// The plaintext inside an item's sealed record (format version 1).
///
/// `u8(class)` then fields `u8(tag) || u32be(length) || value`, tags strictly ascending,
/// except that `custom` (0x20) repeats, sorted by name. Dates are `i64be` milliseconds since
/// the Unix epoch. docs/vault-format.md has the full table.
enum ItemRecord {
    enum Tag: UInt8 {
        case service = 0x01, account = 0x02, secret = 0x03, created = 0x04, modified = 0x05
        case expiresAt = 0x06, label = 0x07, comment = 0x08
        case `protocol` = 0x10, port = 0x11, path = 0x12, authenticationType = 0x13
        case custom = 0x20
    }

    static func encode(_ attributes: ItemAttributes, secret: Data) -> [UInt8] {
        var out: [UInt8] = [attributes.id.itemClass.rawValue]
        out.reserveCapacity(secret.count + 128)
        func field(_ tag: Tag, _ value: some Collection<UInt8>) {
            out.append(tag.rawValue)
            out.append(contentsOf: bigEndianBytes(UInt32(value.count)))
            out.append(contentsOf: value)
        }
        func text(_ tag: Tag, _ value: String?) {
            if let value { field(tag, Normalization.nfc(value).utf8) }
        }
        func date(_ tag: Tag, _ value: Date?) {
            if let value { field(tag, bigEndianBytes(milliseconds(value))) }
        }
        text(.service, attributes.id.service)
        text(.account, attributes.id.account)
        field(.secret, secret)
        date(.created, attributes.created)
        date(.modified, attributes.modified)
        date(.expiresAt, attributes.expiresAt)
        text(.label, attributes.label)
        text(.comment, attributes.comment)
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
        return out
    }

    /// Decodes a whole record. The secret is a slice of `bytes`, so the caller decides whether to copy it.
    static func decode(_ bytes: [UInt8]) throws(CofferError) -> (attributes: ItemAttributes, secret: ArraySlice<UInt8>) {
        var reader = try Reader(bytes)
        var service: String?, account: String?, secret: ArraySlice<UInt8>?, created: Date?, modified: Date?
        var expiresAt: Date?, label: String?, comment: String?
        var internet = InternetAttributes()
        var custom: [String: String] = [:]
        while let (tag, value) = try reader.next() {
            switch tag {
            case .service: service = try string(value)
            case .account: account = try string(value)
            case .secret: secret = value
            case .created: created = try date(value)
            case .modified: modified = try date(value)
            case .expiresAt: expiresAt = try date(value)
            case .label: label = try string(value)
            case .comment: comment = try string(value)
            case .protocol: internet.protocol = try string(value)
            case .port:
                guard value.count == 2 else { throw malformed }
                internet.port = Int(value[value.startIndex]) << 8 | Int(value[value.startIndex + 1])
            case .path: internet.path = try string(value)
            case .authenticationType: internet.authenticationType = try string(value)
            case .custom:
                guard value.count >= 4 else { throw malformed }
                let nameLength = Int(try uint32(value.prefix(4)))
                guard value.count - 4 >= nameLength else { throw malformed }
                let name = try string(value.dropFirst(4).prefix(nameLength))
                custom[name] = try string(value.dropFirst(4 + nameLength))
            }
        }
        guard let service, let account, let secret, let created, let modified else { throw malformed }
        let attributes = ItemAttributes(
            id: ItemID(itemClass: reader.itemClass, service: service, account: account),
            label: label, comment: comment, custom: custom, created: created, modified: modified,
            expiresAt: expiresAt, internet: internet.isEmpty ? nil : internet)
        return (attributes, secret)
    }

    /// Reads only the secret and the expiry: the fast path of a `get`.
    static func decodeSecret(_ bytes: [UInt8]) throws(CofferError) -> (secret: ArraySlice<UInt8>, expiresAt: Date?) {
        var reader = try Reader(bytes)
        var secret: ArraySlice<UInt8>?, expiresAt: Date?
        while let (tag, value) = try reader.next(), tag.rawValue <= Tag.expiresAt.rawValue {
            switch tag {
            case .secret: secret = value
            case .expiresAt: expiresAt = try date(value)
            default: break
            }
        }
        guard let secret else { throw malformed }
        return (secret, expiresAt)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    private static let malformed = CofferError.corruptVault(reason: "malformed item record")

    private static func string(_ value: ArraySlice<UInt8>) throws(CofferError) -> String {
        guard let text = String(validating: value, as: UTF8.self) else { throw malformed }
        return text
    }

    private static func uint32(_ value: ArraySlice<UInt8>) throws(CofferError) -> UInt32 {
        guard value.count == 4 else { throw malformed }
        return value.reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func date(_ value: ArraySlice<UInt8>) throws(CofferError) -> Date {
        guard value.count == 8 else { throw malformed }
        let millis = Int64(bitPattern: value.reduce(0) { $0 << 8 | UInt64($1) })
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// Walks the fields, enforcing the ordering rules.
    private struct Reader {
        let bytes: [UInt8]
        let itemClass: ItemClass
        var offset = 1
        var lastTag: UInt8 = 0

        init(_ bytes: [UInt8]) throws(CofferError) {
            guard let first = bytes.first, let itemClass = ItemClass(rawValue: first) else { throw malformed }
            self.bytes = bytes
            self.itemClass = itemClass
        }

        mutating func next() throws(CofferError) -> (Tag, ArraySlice<UInt8>)? {
            guard offset < bytes.count else { return nil }
            guard bytes.count - offset >= 5, let tag = Tag(rawValue: bytes[offset]) else { throw malformed }
            guard tag.rawValue > lastTag || (tag == .custom && lastTag == Tag.custom.rawValue) else { throw malformed }
            let length = Int(try uint32(bytes[(offset + 1)..<(offset + 5)]))
            guard bytes.count - offset - 5 >= length else { throw malformed }
            let value = bytes[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
            lastTag = tag.rawValue
            return (tag, value)
        }
    }
}
