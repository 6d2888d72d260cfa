import CLibSecret
import FoundationEssentials

/// Item operations on the unlocked default collection, each bounded by the operation's deadline.
///
/// Attributes go to libsecret as `GHashTable`s with no schema: libsecret then neither rejects
/// attributes a schema does not declare nor adds `xdg:schema` on its own; Coffer writes
/// `xdg:schema` itself and searches without it, as `secret-tool` does.
///
/// Searches go through libsecret's service object and keep the items under the collection's
/// path; only creating an item needs a proxy of the collection itself.
struct SecretCollectionSession {
    let service: GObjectReference<CLibSecret.SecretService>
    /// The D-Bus path of the default collection, checked unlocked for this operation.
    let collectionPath: String
    let deadline: OperationDeadline

    /// The collection's items whose attributes include all of `attributes`, secrets not loaded.
    /// Throws ``CofferError/locked`` if any of them is locked.
    func search(_ attributes: [String: String]) throws(CofferError) -> [SecretServiceItem] {
        var error: UnsafeMutablePointer<GError>?
        let list = GLibStrings.withTable(attributes) { table in
            secret_service_search_sync(service.pointer, nil, table, SECRET_SEARCH_ALL, deadline.pointer, &error)
        }
        if let error { throw GLibErrors.take(error, deadline: deadline, doing: "searching the collection") }
        let prefix = collectionPath + "/"
        let items = GLibStrings.takeObjects(list, as: SecretItem.self).map(SecretServiceItem.init(taking:))
            .filter { $0.path.hasPrefix(prefix) }
        if items.contains(where: \.isLocked) { throw .locked }
        return items
    }

    /// Loads the secrets of `items` in one D-Bus call.
    func loadSecrets(_ items: [SecretServiceItem]) throws(CofferError) {
        guard !items.isEmpty else { return }
        var list: UnsafeMutablePointer<GList>?
        for item in items.reversed() { list = g_list_prepend(list, UnsafeMutableRawPointer(item.reference.pointer)) }
        defer { g_list_free(list) }
        var error: UnsafeMutablePointer<GError>?
        guard secret_item_load_secrets_sync(list, deadline.pointer, &error) != 0 else {
            throw GLibErrors.take(error, deadline: deadline, doing: "reading secrets")
        }
    }

    /// Makes `existing` (the items of one identity, newest first) a single item with these
    /// attributes, label and secret: the newest is rewritten in place and the others deleted,
    /// or a new item is created when there is none. The item is never absent on the way.
    func upsert(
        _ existing: [SecretServiceItem], attributes: [String: String], label: String, secret: UnsafeRawBufferPointer
    ) throws(CofferError) {
        if let newest = existing.first {
            try update(newest, attributes: attributes, label: label, secret: secret)
        } else {
            try create(attributes: attributes, label: label, secret: secret)
        }
        for duplicate in existing.dropFirst() { try delete(duplicate) }
    }

    /// Creates an item, replacing one with exactly the same attributes.
    private func create(attributes: [String: String], label: String, secret: UnsafeRawBufferPointer) throws(CofferError) {
        let value = Self.value(secret)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        let collection = try collectionProxy()
        var error: UnsafeMutablePointer<GError>?
        let item = GLibStrings.withTable(attributes) { table in
            secret_item_create_sync(
                collection.pointer, nil, table, label, value, SECRET_ITEM_CREATE_REPLACE, deadline.pointer, &error)
        }
        guard let item else { throw GLibErrors.take(error, deadline: deadline, doing: "creating an item") }
        g_object_unref(item)
    }

    /// Rewrites an existing item in place, so the daemon keeps its identity and creation time.
    /// The secret goes first; attributes and label follow only when they differ.
    private func update(_ item: SecretServiceItem, attributes: [String: String], label: String, secret: UnsafeRawBufferPointer) throws(CofferError) {
        let value = Self.value(secret)
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var error: UnsafeMutablePointer<GError>?
        guard secret_item_set_secret_sync(item.reference.pointer, value, deadline.pointer, &error) != 0 else {
            throw GLibErrors.take(error, deadline: deadline, doing: "setting a secret")
        }
        if item.attributes != attributes {
            let done = GLibStrings.withTable(attributes) { table in
                secret_item_set_attributes_sync(item.reference.pointer, nil, table, deadline.pointer, &error)
            }
            guard done != 0 else { throw GLibErrors.take(error, deadline: deadline, doing: "setting attributes") }
        }
        if item.label != label {
            guard secret_item_set_label_sync(item.reference.pointer, label, deadline.pointer, &error) != 0 else {
                throw GLibErrors.take(error, deadline: deadline, doing: "setting a label")
            }
        }
    }

    /// Deletes every item whose attributes include `attributes`. Returns whether there was any.
    func deleteAll(_ attributes: [String: String]) throws(CofferError) -> Bool {
        let items = try search(attributes)
        for item in items { try delete(item) }
        return !items.isEmpty
    }

    /// Deletes an item. An item that is already gone counts as deleted.
    func delete(_ item: SecretServiceItem) throws(CofferError) {
        var error: UnsafeMutablePointer<GError>?
        guard secret_item_delete_sync(item.reference.pointer, deadline.pointer, &error) != 0 else {
            if let error, error.pointee.domain == secret_error_get_quark(),
               error.pointee.code == Int32(SECRET_ERROR_NO_SUCH_OBJECT.rawValue) {
                g_error_free(error)
                return
            }
            throw GLibErrors.take(error, deadline: deadline, doing: "deleting an item")
        }
    }

    /// A proxy of the default collection, for creating items. It must still be the collection
    /// checked unlocked at the start of the operation.
    private func collectionProxy() throws(CofferError) -> GObjectReference<SecretCollection> {
        var error: UnsafeMutablePointer<GError>?
        let collection = secret_collection_for_alias_sync(
            service.pointer, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, deadline.pointer, &error)
        if let error { throw GLibErrors.take(error, deadline: deadline, doing: "reading the default collection") }
        guard let collection else { throw .locked }
        let reference = GObjectReference(taking: collection)
        let path = String(cString: g_dbus_proxy_get_object_path(UnsafeMutableRawPointer(collection).assumingMemoryBound(to: GDBusProxy.self)))
        guard path == collectionPath else {
            throw .secretServiceUnavailable(reason: "the default collection changed during the operation; try again")
        }
        return reference
    }

    /// A libsecret value holding a copy of `secret` (in libsecret's non-pageable memory).
    /// UTF-8 text is marked `text/plain`, as `secret-tool` and the keyring libraries expect.
    private static func value(_ secret: UnsafeRawBufferPointer) -> OpaquePointer {
        let isText = String(validating: secret.bindMemory(to: UInt8.self), as: UTF8.self) != nil
        let contentType = isText ? "text/plain" : "application/octet-stream"
        guard let base = secret.baseAddress, secret.count > 0 else { return secret_value_new("", 0, contentType) }
        return secret_value_new(base.assumingMemoryBound(to: CChar.self), secret.count, contentType)
    }
}
