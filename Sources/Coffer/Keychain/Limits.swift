import FoundationEssentials

/// Size limits every store enforces. Past them, writes fail with a typed error and nothing is stored.
public enum Limits {
    /// The largest secret: 1 MiB. Larger secrets fail with ``CofferError/secretTooLarge(size:limit:)``.
    public static let maxSecretBytes = 1 << 20
    /// The longest service, server or account, in UTF-8 bytes.
    public static let maxNameBytes = 1024
    /// The longest label, comment, protocol, path, authentication type or custom value, in UTF-8 bytes.
    public static let maxTextBytes = 4096
    /// The longest custom attribute name, in UTF-8 bytes.
    public static let maxAttributeNameBytes = 256
    /// The most custom attributes on one item.
    public static let maxCustomAttributes = 64
    /// The largest sealed record a vault reader decrypts: 2 MiB, above the largest record a
    /// writer can make within the other limits (about 1.3 MiB).
    public static let maxRecordBytes = 2 << 20

    static func check(_ text: String, limit: Int, what: String) throws(CofferError) {
        guard text.utf8.count <= limit else {
            throw .invalidArgument(reason: "\(what) is longer than \(limit) bytes")
        }
    }

    static func checkSecret(size: Int) throws(CofferError) {
        guard size <= maxSecretBytes else { throw .secretTooLarge(size: size, limit: maxSecretBytes) }
    }

    /// Checks an item about to be set against these limits and its class, before anything is
    /// written or sent: every store's `set` starts here.
    static func checkItem(_ secret: Data, for id: ItemID, options: ItemOptions) throws(CofferError) {
        try id.validate()
        try options.validate(for: id.itemClass)
        try checkSecret(size: secret.count)
    }
}
