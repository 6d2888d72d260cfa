import FoundationEssentials
import Glibc

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
        encode(attributes, secret: secret, accessFields: encodedAccess(access))
    }

    /// The record of `attributes` and `secret` whose last fields are `accessFields`, the owner
    /// and access-list fields exactly as another record holds them (``Decoded/accessFields``,
    /// which ``decode(_:)`` checked) or as ``encodedAccess(_:)`` writes them.
    static func encode(_ attributes: ItemAttributes, secret: some Collection<UInt8>, accessFields: [UInt8]) -> [UInt8] {
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
        out.append(contentsOf: accessFields)
        return out
    }

    /// The owner and access-list fields, the last of a record.
    static func encodedAccess(_ access: ItemAccess) -> [UInt8] {
        var out: [UInt8] = []
        if let owner = access.owner { TaggedFields.append(Tag.owner.rawValue, owner.encoded, to: &out) }
        for program in access.allowed { TaggedFields.append(Tag.allowed.rawValue, program.encoded, to: &out) }
        return out
    }

    /// The owner and access list of fields that ``decode(_:)`` checked.
    static func access(_ accessFields: some Collection<UInt8>) -> ItemAccess {
        var reader = TaggedFields.Reader(ArraySlice(accessFields), repeatable: repeatableTags)
        var owner: Program?, allowed: [Program] = []
        while let (tag, value) = try? reader.next(), let program = try? Program.decode(value) {
            if tag == Tag.owner.rawValue { owner = program } else { allowed.append(program) }
        }
        return ItemAccess(owner: owner, allowed: allowed)
    }

    /// The class byte and the fields the attribute index is made of (the names, the internet
    /// attributes and the custom ones: ``ItemAttributes/indexedAttributes``), from a record
    /// that ``decode(_:)`` accepts. Records are written in one canonical form, so two records
    /// with the same bytes here have the same index rows.
    static func indexedFields(of record: ArraySlice<UInt8>) -> [UInt8] {
        indexedFields(record.prefix(1), record.dropFirst())
    }

    private static func indexedFields(_ itemClass: ArraySlice<UInt8>, _ fields: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        _ = walkIndexedFields(itemClass, fields) { part in
            out.append(contentsOf: part)
            return true
        }
        return out
    }

    /// Whether ``indexedFields(of:)`` of `record` is `expected`, found without copying.
    static func hasIndexedFields(_ expected: [UInt8], _ record: ArraySlice<UInt8>) -> Bool {
        var offset = 0
        let matched = walkIndexedFields(record.prefix(1), record.dropFirst()) { part in
            guard expected.count - offset >= part.count, expected[offset..<(offset + part.count)].elementsEqual(part) else { return false }
            offset += part.count
            return true
        }
        return matched && offset == expected.count
    }

    /// Calls `body` with `itemClass`, then with each field of `fields` that the attribute index
    /// is made of, whole, in order; stops at the first `false`, and returns whether none was.
    private static func walkIndexedFields(
        _ itemClass: ArraySlice<UInt8>, _ fields: ArraySlice<UInt8>, _ body: (ArraySlice<UInt8>) -> Bool
    ) -> Bool {
        guard body(itemClass) else { return false }
        var reader = TaggedFields.Reader(fields, repeatable: repeatableTags)
        var start = reader.position
        while let (tag, _) = try? reader.next(), tag < Tag.owner.rawValue {
            if tag <= Tag.account.rawValue || tag >= Tag.protocol.rawValue, !body(fields[start..<reader.position]) { return false }
            start = reader.position
        }
        return true
    }

    /// The tags that may follow themselves in a record.
    private static let repeatableTags = [Tag.custom.rawValue, Tag.allowed.rawValue]

    /// A record checked by ``decode(_:)``: slices of its plaintext, from which the attributes and
    /// the access are built only when a caller asks, so a read of a secret builds neither. Every
    /// part refers to the plaintext: take what is needed before the plaintext is wiped.
    package struct Decoded {
        let itemClass: ItemClass
        /// Every field, after the class byte.
        let fields: ArraySlice<UInt8>
        /// The service and account bytes, exactly as stored.
        let service: ArraySlice<UInt8>, account: ArraySlice<UInt8>
        /// A slice of the plaintext, so the caller decides whether to copy it.
        package let secret: ArraySlice<UInt8>
        /// When the item stops existing, read at once: every read checks it.
        let expiresAt: Date?
        /// The owner and access-list fields (format version 3).
        let accessFields: ArraySlice<UInt8>

        /// The item's attributes.
        package var attributes: ItemAttributes { ItemRecord.attributes(itemClass, fields) }

        /// When the item was created.
        let created: Date

        /// The secret, copied out of the plaintext in one `memcpy`.
        package var secretData: Data { secret.withUnsafeBytes { Data($0) } }

        /// The item: its attributes and its secret, copied out of the plaintext.
        package var item: Item { Item(attributes: attributes, secret: secretData) }

        /// The item's owner and access list (format version 3).
        package var access: ItemAccess { ItemRecord.access(accessFields) }

        /// ``ItemRecord/indexedFields(of:)`` of this record.
        var indexedFields: [UInt8] { ItemRecord.indexedFields([itemClass.rawValue], fields) }

        /// The blind-index input of the stored class, service and account bytes exactly as
        /// stored: the row key recomputed from it must equal the row's (docs/vault-format.md, 5.3).
        var indexInput: [UInt8] { VaultFormat.blindIndexInput(itemClass: itemClass, service: service, account: account) }

        /// Whether the stored class and names are exactly those of `indexInput`, compared
        /// without building the record's own input.
        func hasIndexInput(_ indexInput: [UInt8]) -> Bool {
            let accountStart = 9 + service.count
            guard indexInput.count == accountStart + account.count, indexInput[0] == itemClass.rawValue else { return false }
            return indexInput.withUnsafeBufferPointer { input in
                func length(at start: Int) -> Int { input[start..<(start + 4)].reduce(0) { $0 << 8 | Int($1) } }
                func holds(_ bytes: ArraySlice<UInt8>, at start: Int) -> Bool {
                    bytes.withUnsafeBufferPointer { bytes in bytes.isEmpty || memcmp(input.baseAddress! + start, bytes.baseAddress!, bytes.count) == 0 }
                }
                return length(at: 1) == service.count && holds(service, at: 5) && length(at: accountStart - 4) == account.count
                    && holds(account, at: accountStart)
            }
        }

        /// Whether the item has expired by `now` (and so does not exist).
        func isExpired(at now: Date) -> Bool {
            expiresAt.map { $0 <= now } ?? false
        }
    }

    /// Checks a whole record against every rule of docs/vault-format.md section 5.3 (and 5.5): the
    /// one decoder of every read. Throws ``CofferError/integrityFailure`` for a plaintext that
    /// breaks any of them, since only the record's own item is affected. Builds nothing: the
    /// attributes and the access come from ``Decoded``, on demand.
    package static func decode(_ bytes: [UInt8]) throws(CofferError) -> Decoded {
        guard let first = bytes.first, let itemClass = ItemClass(rawValue: first) else { throw malformed }
        var reader = TaggedFields.Reader(bytes.dropFirst(), repeatable: repeatableTags)
        var service: ArraySlice<UInt8>?, account: ArraySlice<UInt8>?, secret: ArraySlice<UInt8>?
        var created: Date?, hasModified = false, expiresAt: Date?
        var customCount = 0, lastCustomName: ArraySlice<UInt8>?
        var accessStart: Int?, allowedCount = 0, lastAllowed: ArraySlice<UInt8>?
        while let (rawTag, value) = try reader.next() {
            guard let tag = Tag(rawValue: rawTag) else { throw malformed }
            switch tag {
            case .service: service = try checkedText(value, limit: Limits.maxNameBytes)
            case .account: account = try checkedText(value, limit: Limits.maxNameBytes)
            case .secret:
                guard value.count <= Limits.maxSecretBytes else { throw malformed }
                secret = value
            case .created: created = try date(value)
            case .modified:
                _ = try date(value)
                hasModified = true
            case .expiresAt: expiresAt = try date(value)
            case .label, .comment, .contentType: try checkedText(value)
            case .protocol, .port, .path, .authenticationType:
                guard itemClass == .internetPassword else { throw malformed }
                if tag == .port {
                    guard value.count == 2 else { throw malformed }
                } else {
                    try checkedText(value)
                }
            case .custom:
                guard customCount < Limits.maxCustomAttributes else { throw malformed }
                let (name, attributeValue) = try customParts(value)
                if let lastCustomName, !lastCustomName.lexicographicallyPrecedes(name) { throw malformed }
                lastCustomName = name
                try checkedText(attributeValue)
                customCount += 1
            case .owner, .allowed:
                try Program.check(value)
                accessStart = accessStart ?? value.startIndex - 5
                if tag == .allowed {
                    guard allowedCount < ItemAccess.maxAllowed else { throw malformed }
                    if let lastAllowed, !lastAllowed.lexicographicallyPrecedes(value) { throw malformed }
                    lastAllowed = value
                    allowedCount += 1
                }
            }
        }
        guard let service, let account, let secret, let created, hasModified else { throw malformed }
        // An attribute item's service is its identifier and its account is empty.
        if itemClass == .attributeItem, !account.isEmpty { throw malformed }
        return Decoded(
            itemClass: itemClass, fields: bytes.dropFirst(), service: service, account: account, secret: secret,
            expiresAt: expiresAt, accessFields: bytes[(accessStart ?? bytes.endIndex)...], created: created)
    }

    /// The attributes of fields that ``decode(_:)`` checked.
    private static func attributes(_ itemClass: ItemClass, _ fields: ArraySlice<UInt8>) -> ItemAttributes {
        var reader = TaggedFields.Reader(fields, repeatable: repeatableTags)
        var service = "", account = "", created = Date(timeIntervalSince1970: 0), modified = created, expiresAt: Date?
        var label: String?, comment: String?, contentType: String?, internet = InternetAttributes(), custom: [String: String] = [:]
        func string(_ value: ArraySlice<UInt8>) -> String { String(decoding: value, as: UTF8.self) }
        while let (rawTag, value) = try? reader.next() {
            switch Tag(rawValue: rawTag) {
            case .service?: service = string(value)
            case .account?: account = string(value)
            case .created?: created = dateValue(value)
            case .modified?: modified = dateValue(value)
            case .expiresAt?: expiresAt = dateValue(value)
            case .label?: label = string(value)
            case .comment?: comment = string(value)
            case .contentType?: contentType = string(value)
            case .protocol?: internet.protocol = string(value)
            case .port?: internet.port = Int(value[value.startIndex]) << 8 | Int(value[value.startIndex + 1])
            case .path?: internet.path = string(value)
            case .authenticationType?: internet.authenticationType = string(value)
            case .custom?:
                if let (name, attributeValue) = try? customParts(value) { custom[string(name)] = string(attributeValue) }
            case .secret?, .owner?, .allowed?, nil: break
            }
        }
        return ItemAttributes(
            id: ItemID(itemClass: itemClass, service: service, account: account), label: label, comment: comment, custom: custom,
            created: created, modified: modified, expiresAt: expiresAt, internet: internet.isEmpty ? nil : internet,
            contentType: contentType)
    }

    /// A custom attribute's name (UTF-8 within ``Limits/maxAttributeNameBytes``) and value:
    /// `u32be(len(name)) || name || value`.
    private static func customParts(_ value: ArraySlice<UInt8>) throws(CofferError) -> (ArraySlice<UInt8>, ArraySlice<UInt8>) {
        guard value.count >= 4 else { throw malformed }
        let nameLength = Int(try uint32(value.prefix(4)))
        guard nameLength <= value.count - 4 else { throw malformed }
        let name = try checkedText(value.dropFirst(4).prefix(nameLength), limit: Limits.maxAttributeNameBytes)
        return (name, value.dropFirst(4 + nameLength))
    }

    /// `plaintext` (a record that ``decode(_:)`` accepts) with its owner and access list
    /// replaced by `access`, every other byte as it was: they are its last fields.
    static func replacingAccess(in plaintext: [UInt8], with access: ItemAccess) throws(CofferError) -> [UInt8] {
        var reader = TaggedFields.Reader(plaintext.dropFirst(), repeatable: repeatableTags)
        var end = reader.position
        while let (tag, _) = try reader.next(), tag < Tag.owner.rawValue { end = reader.position }
        return Array(plaintext[..<end]) + encodedAccess(access)
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
        try checkedText(service, limit: Limits.maxNameBytes)
        try checkedText(account, limit: Limits.maxNameBytes)
        return ItemID(itemClass: itemClass, service: String(decoding: service, as: UTF8.self), account: String(decoding: account, as: UTF8.self))
    }

    /// A date as the record stores it: whole milliseconds since the Unix epoch, or `nil` when
    /// the date is too far from 1970 to fit (about ±292 million years).
    static func milliseconds(_ date: Date) -> Int64? {
        Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    private static let malformed = CofferError.integrityFailure

    /// Valid UTF-8 within `limit` bytes (by default ``Limits/maxTextBytes``: a label, comment,
    /// internet attribute or custom value), checked without making a string.
    @discardableResult
    private static func checkedText(_ value: ArraySlice<UInt8>, limit: Int = Limits.maxTextBytes) throws(CofferError) -> ArraySlice<UInt8> {
        guard value.count <= limit, TaggedFields.isValidUTF8(value) else { throw malformed }
        return value
    }

    private static func uint32(_ value: ArraySlice<UInt8>) throws(CofferError) -> UInt32 {
        guard value.count == 4 else { throw malformed }
        return value.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A date field: exactly 8 bytes.
    static func date(_ value: ArraySlice<UInt8>) throws(CofferError) -> Date {
        guard value.count == 8 else { throw malformed }
        return dateValue(value)
    }

    /// `i64be` milliseconds since the Unix epoch, from 8 checked bytes.
    private static func dateValue(_ value: ArraySlice<UInt8>) -> Date {
        let millis = Int64(bitPattern: value.reduce(0) { $0 << 8 | UInt64($1) })
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}
