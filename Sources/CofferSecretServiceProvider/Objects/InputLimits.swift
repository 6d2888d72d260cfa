/// Limits on what one call may ask for, checked before the work (and before the arguments are
/// decoded into Swift values), so that no call grows the provider's memory with the size of
/// its arguments.
extension SecretServiceObjects {
    /// The most attributes a search (or an item) may name: more than any item has (64 custom
    /// attributes and the few names of its class).
    static let maxAttributes = 128
    /// The most bytes the attributes of a search (or an item) may take, serialized: room for
    /// 128 names of 256 bytes and values of 4 KiB.
    static let maxAttributeBytes = 128 * (256 + 4096) + 4096
    /// The most properties `CreateItem` and `CreateCollection` may carry.
    static let maxProperties = 64
    /// The most collections one connection may create while it is connected; all together,
    /// ``CollectionRegistry/maxCreated`` may exist.
    static let createdPerConnection = 16

    /// An `a{ss}` of attributes as a map, once its count and size are within the limits.
    static func attributes(_ value: Variant) throws(DBusError) -> [String: String] {
        guard value.count <= maxAttributes, value.serializedSize <= maxAttributeBytes else {
            throw .limitsExceeded("at most \(maxAttributes) attributes and \(maxAttributeBytes) bytes of them")
        }
        return ItemMapping.normalized(value.stringMap)
    }

    /// An `a{sv}` of properties as a map, once its count is within the limit.
    static func properties(_ value: Variant) throws(DBusError) -> [String: Variant] {
        guard value.count <= maxProperties else { throw .limitsExceeded("at most \(maxProperties) properties") }
        return value.propertyMap
    }
}
