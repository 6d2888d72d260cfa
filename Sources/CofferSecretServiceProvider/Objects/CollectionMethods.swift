import Coffer
import CofferAgent
import Foundation
import Glibc

/// `org.freedesktop.Secret.Collection`, at each collection's path and at its alias paths.
extension SecretServiceObjects {
    func collectionCall(_ call: MethodCall) throws(DBusError) -> [Variant] {
        let collection = try collection(at: call.path)
        let arguments = call.arguments
        switch call.method {
        case "Delete":
            try admitDeletingEveryItem(of: collection, call: call)
            try registry.delete(collection)
            export.unexport(collection.path)
            emitCollectionSignal("CollectionDeleted", collection)
            return [.objectPath(ObjectPaths.none)]
        case "SearchItems":
            let found = try visibleItems(in: collection, matching: try Self.attributes(arguments.child(0)), connection: call.sender, caller: call.caller)
            return [.objectPaths(found.readable + found.locked)]
        case "CreateItem":
            let path = try createItem(
                in: collection, properties: try Self.properties(arguments.child(0)), secret: arguments.child(1),
                replace: arguments.child(2).boolean, call: call)
            return [.objectPath(path), .objectPath(ObjectPaths.none)]
        default:
            throw .notSupported("no method \(call.method)")
        }
    }

    /// A collection's property as the caller behind `connection` sees it: `Items` leaves out
    /// the items hidden from it (`strict`).
    func collectionProperty(_ name: String, at path: String, connection: String?, caller: Caller?) throws(DBusError) -> Variant {
        let collection = try collection(at: path)
        // A share's items have no file here to date.
        if collection.kind == .upstream, ["Created", "Modified"].contains(name) { return .uint64(0) }
        switch name {
        case "Items":
            // Locked, it lists none (its items are encrypted), but it answers: libsecret cannot
            // load a collection, nor Seahorse show it, without this property.
            guard !registry.isLocked(collection) else { return .objectPaths([]) }
            let found = try visibleItems(in: collection, matching: [:], connection: connection, caller: caller)
            return .objectPaths(found.readable + found.locked)
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
    ///
    /// A new item is owned by the caller's program; rewriting an existing one needs the
    /// permission reading it needs (``admit(_:item:access:at:in:vault:connection:caller:)``).
    private func createItem(
        in collection: ServedCollection, properties: [String: Variant], secret: Variant, replace: Bool, call: MethodCall
    ) throws(DBusError) -> String {
        let caller = call.sender
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
            let rowKey = try vault.rowKey(for: id)
            var access = existing?.access
            if access == nil, var current = try vault.storedItemWithAccess(atRowKey: rowKey) {
                current.item.secret.wipe()
                access = current.access
            }
            if let access {
                guard try admit(.write, item: id, access: access, at: rowKey, in: collection, vault: vault, connection: call.sender, caller: call.caller)
                else { throw .accessDenied(program: AccessGate.name(of: call.caller?.program)) }
            } else {
                if let log = vault.gated { try gate.record(.write, item: id, in: log, by: call.caller?.program, decision: .owner) }
            }
            return (try vault.store(plaintext, for: id, options: options, owner: call.caller?.program), access == nil)
        }
        incoming.value = SecureBytes(copying: [])
        let path = ObjectPaths.item(rowKey, in: collection.name)
        emitItemSignal(created ? "ItemCreated" : "ItemChanged", item: path, in: collection)
        return path
    }

    /// A collection's `Delete` removes every item in it, so the caller must be one that may
    /// delete each, as an item's own `Delete` needs (each decision logged; the first refusal
    /// ends the check and nothing is removed). A locked collection's items cannot be checked: it
    /// is unlocked first. Other collections than created ones are refused by the registry.
    private func admitDeletingEveryItem(of collection: ServedCollection, call: MethodCall) throws(DBusError) {
        guard collection.kind == .created else { return }
        let admitted = try withVault(collection) { vault throws(CofferError) -> Bool in
            for item in try vault.storedItems(withAttributes: [:]) {
                let allowed = try admit(
                    .delete, item: item.attributes.id, access: item.access, at: item.rowKey, in: collection, vault: vault, connection: call.sender,
                    caller: call.caller)
                if !allowed { return false }
            }
            return true
        }
        guard admitted else { throw .accessDenied("the collection holds items this program may not delete; nothing was deleted") }
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
