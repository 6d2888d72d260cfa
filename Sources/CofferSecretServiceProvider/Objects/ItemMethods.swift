import Coffer
import CofferAgent
import Foundation

/// `org.freedesktop.Secret.Item`, at each item's path.
extension SecretServiceObjects {
    func itemCall(_ call: MethodCall) throws(DBusError) -> [Variant] {
        switch call.method {
        case "Delete":
            var found = try permittedItem(at: call.path, for: .delete, connection: call.sender, caller: call.caller)
            found.item.secret.wipe()
            try withVault(found.collection) { vault throws(CofferError) in _ = try vault.removeStoredItem(atRowKey: found.rowKey) }
            emitItemSignal("ItemDeleted", item: call.path, in: found.collection)
            return [.objectPath(ObjectPaths.none)]
        case "GetSecret":
            let session = try sessions.session(at: call.arguments.child(0).string, for: call.sender)
            var found = try permittedItem(at: call.path, for: .read, connection: call.sender, caller: call.caller)
            defer { found.item.secret.wipe() }
            return [session.encode(found.item.secret, contentType: ItemMapping.servedContentType(of: found.item.attributes))]
        case "SetSecret":
            var found = try permittedItem(at: call.path, for: .write, connection: call.sender, caller: call.caller)
            found.item.secret.wipe()
            let incoming = try incomingSecret(call.arguments.child(0), from: call.sender)
            var options = found.item.attributes.options
            options.contentType = ItemMapping.options(
                for: found.item.attributes.id, attributes: [:], label: "", contentType: incoming.contentType, previous: nil).contentType
            var plaintext = incoming.value.data
            defer { plaintext.wipe() }
            try rewrite(found, secret: plaintext, options: options, path: call.path)
            return []
        default:
            throw .notSupported("no method \(call.method)")
        }
    }

    /// An item's property as the caller behind `connection` sees it: `Locked` is whether it
    /// may read the item now; an item hidden from it (`strict`) shows nothing else.
    func itemProperty(_ name: String, at path: String, connection: String?, caller: Caller?) throws(DBusError) -> Variant {
        if case .lockedMatch = ObjectPaths.target(of: path) { return try lockedMatchProperty(name, at: path) }
        let collection = try owningCollection(of: path)
        if name == "Locked" {
            // An item in a locked collection cannot be read, but it is locked, not missing.
            if registry.isLocked(collection) { return .boolean(true) }
        }
        let (attributes, rowKey, access, policy) = try propertyAttributes(at: path)
        let view = view(of: access, at: rowKey, in: collection, policy: policy, connection: connection, caller: caller)
        guard name != "Locked" else { return .boolean(!view.isReadable) }
        guard view != .hidden else { throw Self.lockedForCaller }
        switch name {
        case "Attributes": return .stringMap(attributes.indexedAttributes)
        case "Label": return .string(attributes.label ?? "")
        case "Type": return .string(attributes.indexedAttributes["xdg:schema"] ?? "")
        case "Created": return .uint64(Self.seconds(attributes.created))
        case "Modified": return .uint64(Self.seconds(attributes.modified))
        default: throw .invalidArguments("no property \(name)")
        }
    }

    /// A locked match's properties: whether its collection is locked, and nothing else.
    private func lockedMatchProperty(_ name: String, at path: String) throws(DBusError) -> Variant {
        guard let match = lockedMatches.match(at: path) else { throw .noSuchObject() }
        switch name {
        case "Locked": return .boolean(registry.isLocked(match.collection))
        case "Attributes": return .stringMap([:])
        case "Label", "Type": return .string("")
        case "Created", "Modified": return .uint64(0)
        default: throw .invalidArguments("no property \(name)")
        }
    }

    func setItemProperty(_ name: String, at path: String, to value: Variant, connection: String, caller: Caller?) throws(DBusError) {
        var found = try permittedItem(at: path, for: .write, connection: connection, caller: caller)
        defer { found.item.secret.wipe() }
        let current = found.item.attributes
        switch name {
        case "Label":
            guard value.isOfType("s") else { throw .invalidArguments("the label is a string") }
            try Self.checkLabel(value.string)
            var options = current.options
            options.label = value.string.isEmpty ? nil : value.string
            try rewrite(found, secret: found.item.secret, options: options, path: path)
        case "Attributes":
            guard value.isOfType("a{ss}") else { throw .invalidArguments("the attributes are a{ss}") }
            let attributes = try Self.attributes(value)
            try Self.checkAttributes(attributes)
            let id = ItemMapping.identity(for: attributes, current: current.id)
            let options = ItemMapping.options(
                for: id, attributes: attributes, label: current.label ?? "", contentType: ItemMapping.contentType(of: current),
                previous: current.options)
            let rowKey = try withVault(found.collection) { vault throws(CofferError) in
                try vault.move(from: found.rowKey, to: id, secret: found.item.secret, options: options)
            }
            let newPath = ObjectPaths.item(rowKey, in: found.collection.name)
            if newPath == path {
                emitItemSignal("ItemChanged", item: path, in: found.collection)
            } else {
                // New names give the item a new row, hence a new path: to clients it moved.
                emitItemSignal("ItemDeleted", item: path, in: found.collection)
                emitItemSignal("ItemCreated", item: newPath, in: found.collection)
            }
        default:
            throw .accessDenied("the property \(name) is read-only")
        }
        propertiesChanged(of: .item, at: path, invalidating: [name, "Modified"])
    }

    /// The attributes, row key, owner and access list of the item at `path`, and its vault's
    /// policy, read once for all the properties of one `GetAll`.
    private func propertyAttributes(at path: String) throws(DBusError) -> (ItemAttributes, [UInt8], ItemAccess, AccessPolicy?) {
        let collection = try owningCollection(of: path)
        if let propertyItem, propertyItem.path == path, case .item(_, let rowKey) = ObjectPaths.target(of: path) {
            guard !registry.isLocked(collection) else { throw .isLocked() }
            return (propertyItem.attributes, rowKey, propertyItem.access, propertyItem.policy)
        }
        var found = try item(at: path)
        found.item.secret.wipe()
        let policy = try withVault(collection) { vault throws(CofferError) in try vault.accessPolicy() }
        propertyItem = (path, found.item.attributes, found.access, policy)
        loop.whenIdle { [weak self] in self?.propertyItem = nil }
        return (found.item.attributes, found.rowKey, found.access, policy)
    }

    /// Stores the item again in its own row with a new secret or new options.
    private func rewrite(_ found: FoundItem, secret: Data, options: ItemOptions, path: String) throws(DBusError) {
        try withVault(found.collection) { vault throws(CofferError) in
            _ = try vault.move(from: found.rowKey, to: found.item.attributes.id, secret: secret, options: options)
        }
        emitItemSignal("ItemChanged", item: path, in: found.collection)
    }

    static func seconds(_ date: Date) -> UInt64 { UInt64(max(0, date.timeIntervalSince1970.rounded(.down))) }
}
