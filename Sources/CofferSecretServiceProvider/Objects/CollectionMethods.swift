import Coffer
import Foundation
import Glibc

/// `org.freedesktop.Secret.Collection`, at each collection's path and at its alias paths.
extension SecretServiceObjects {
    func collectionCall(_ call: MethodCall) throws(DBusError) -> [Variant] {
        let collection = try collection(at: call.path)
        let arguments = call.arguments
        switch call.method {
        case "Delete":
            try registry.delete(collection)
            export.unexport(collection.path)
            emitCollectionSignal("CollectionDeleted", collection)
            return [.objectPath(ObjectPaths.none)]
        case "SearchItems":
            return [.objectPaths(try itemPaths(in: collection, matching: try Self.attributes(arguments.child(0))))]
        case "CreateItem":
            let path = try createItem(
                in: collection, properties: try Self.properties(arguments.child(0)), secret: arguments.child(1),
                replace: arguments.child(2).boolean, caller: call.sender)
            return [.objectPath(path), .objectPath(ObjectPaths.none)]
        default:
            throw .notSupported("no method \(call.method)")
        }
    }

    func collectionProperty(_ name: String, at path: String) throws(DBusError) -> Variant {
        let collection = try collection(at: path)
        switch name {
        case "Items":
            // Locked, it lists none (its items are encrypted), but it answers: libsecret cannot
            // load a collection, nor Seahorse show it, without this property.
            guard !registry.isLocked(collection) else { return .objectPaths([]) }
            return .objectPaths(try itemPaths(in: collection, matching: [:]))
        case "Label": return .string(collection.label)
        case "Locked": return .boolean(registry.isLocked(collection))
        case "Created":
            let vault = try? Vault.open(at: URL(fileURLWithPath: collection.vaultPath))
            return .uint64(UInt64(max(0, (try? vault?.creationDate())??.timeIntervalSince1970 ?? 0)))
        case "Modified": return .uint64(Self.modificationTime(of: collection.vaultPath))
        default: throw .invalidArguments("no property \(name)")
        }
    }

    func setCollectionProperty(_ name: String, at path: String, to value: Variant) throws(DBusError) {
        guard name == "Label", value.isOfType("s") else { throw .invalidArguments("only the label can be set") }
        let collection = try collection(at: path)
        try Self.checkLabel(value.string)
        try registry.relabel(collection, to: value.string)
        propertiesChanged(of: .collection, at: collection.path, invalidating: ["Label"])
        emitCollectionSignal("CollectionChanged", collection)
    }

    /// Stores a new item, or with `replace` rewrites the item whose attributes are exactly these
    /// (keeping its path). An item with `service` and `username` is the generic password of that
    /// name: there is at most one, so storing it again rewrites it whatever `replace` says.
    private func createItem(
        in collection: ServedCollection, properties: [String: Variant], secret: Variant, replace: Bool, caller: String
    ) throws(DBusError) -> String {
        var label = ""
        var attributes: [String: String] = [:]
        for (name, value) in properties {
            switch name {
            case "org.freedesktop.Secret.Item.Label":
                guard value.isOfType("s") else { throw .invalidArguments("the label is a string") }
                label = value.string
            case "org.freedesktop.Secret.Item.Attributes":
                guard value.isOfType("a{ss}") else { throw .invalidArguments("the attributes are a{ss}") }
                attributes = try Self.attributes(value)
            default:
                continue  // other properties (Type) are read from the attributes
            }
        }
        try Self.checkLabel(label)
        try Self.checkAttributes(attributes)
        var incoming = try incomingSecret(secret, from: caller)
        var plaintext = incoming.value.data
        defer { plaintext.wipe() }
        let (rowKey, created) = try withVault(collection) { vault throws(CofferError) -> ([UInt8], Bool) in
            var existing: StoredItem?
            if replace { existing = try vault.storedItems(withAttributes: attributes).first { $0.attributes.indexedAttributes == attributes } }
            let id = existing?.attributes.id ?? ItemMapping.identity(for: attributes, current: nil)
            let options = ItemMapping.options(
                for: id, attributes: attributes, label: label, contentType: incoming.contentType, previous: existing?.attributes.options)
            var isNew = existing == nil
            if isNew { isNew = try vault.storedItem(atRowKey: try vault.rowKey(for: id)) == nil }
            return (try vault.store(plaintext, for: id, options: options), isNew)
        }
        incoming.value = SecureBytes(copying: [])
        let path = ObjectPaths.item(rowKey, in: collection.name)
        emitItemSignal(created ? "ItemCreated" : "ItemChanged", item: path, in: collection)
        return path
    }

    /// What the vault can keep: its limits on custom attributes, checked before anything is stored.
    static func checkAttributes(_ attributes: [String: String]) throws(DBusError) {
        guard attributes.count <= Limits.maxCustomAttributes + 2 else {
            throw .limitsExceeded("an item has at most \(Limits.maxCustomAttributes) attributes besides service and username")
        }
        for (name, value) in attributes {
            guard name.utf8.count <= Limits.maxAttributeNameBytes, value.utf8.count <= Limits.maxTextBytes else {
                throw .limitsExceeded("an attribute name is at most \(Limits.maxAttributeNameBytes) bytes and a value \(Limits.maxTextBytes)")
            }
        }
    }

    /// The newer of the vault file's and its WAL's modification times, in seconds.
    static func modificationTime(of path: String) -> UInt64 {
        [path, path + "-wal"].map { file -> UInt64 in
            var info = stat()
            return stat(file, &info) == 0 ? UInt64(max(0, info.st_mtim.tv_sec)) : 0
        }.max() ?? 0
    }
}
