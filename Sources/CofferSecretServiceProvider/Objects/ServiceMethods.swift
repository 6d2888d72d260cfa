import Coffer
import CofferAgent
import Foundation

/// `org.freedesktop.Secret.Service` at `/org/freedesktop/secrets`.
extension SecretServiceObjects {
    func serviceCall(_ call: MethodCall) throws(DBusError) -> [Variant] {
        let arguments = call.arguments
        switch call.method {
        case "OpenSession":
            let (session, output) = try sessions.open(algorithm: arguments.child(0).string, input: arguments.child(1).unboxed, owner: call.sender)
            return [output, .objectPath(session.path)]
        case "CreateCollection":
            return try createCollection(properties: try Self.properties(arguments.child(0)), alias: arguments.child(1).string, caller: call.sender)
        case "SearchItems":
            let (unlocked, locked) = search(try Self.attributes(arguments.child(0)), connection: call.sender, caller: call.caller)
            return [.objectPaths(unlocked), .objectPaths(locked)]
        // A path named twice is one object: one decision, one log entry, one question.
        case "Unlock":
            return try unlock(arguments.child(0).objectPathList.uniqued(), connection: call.sender, caller: call.caller)
        case "Lock":
            return [.objectPaths(lock(arguments.child(0).objectPathList.uniqued())), .objectPath(ObjectPaths.none)]
        case "GetSecrets":
            let items = arguments.child(0).objectPathList.uniqued()
            return [try secrets(of: items, session: arguments.child(1).string, connection: call.sender, caller: call.caller)]
        case "ReadAlias":
            return [.objectPath(registry.collection(forAlias: arguments.child(0).string)?.path ?? ObjectPaths.none)]
        case "SetAlias":
            let target = arguments.child(1).string
            try registry.setAlias(arguments.child(0).string, to: target == ObjectPaths.none ? nil : try collection(at: target))
            return []
        default:
            throw .notSupported("no method \(call.method)")
        }
    }

    func serviceProperty(_ name: String) throws(DBusError) -> Variant {
        guard name == "Collections" else { throw .invalidArguments("no property \(name)") }
        return .objectPaths(registry.all().map(\.path))
    }

    /// A new vault-backed collection, or the one `alias` names already. Never prompts: the
    /// new vault's key goes into the provider's records in the login vault, which must be
    /// unlocked. A connection creates at most ``createdPerConnection`` while it is connected.
    private func createCollection(properties: [String: Variant], alias: String, caller: String) throws(DBusError) -> [Variant] {
        if !alias.isEmpty, let existing = registry.collection(forAlias: alias) {
            return [.objectPath(existing.path), .objectPath(ObjectPaths.none)]
        }
        guard collectionsCreated[caller, default: 0] < Self.createdPerConnection else {
            throw .limitsExceeded("this connection has created \(Self.createdPerConnection) collections")
        }
        var label = ""
        if let value = properties["org.freedesktop.Secret.Collection.Label"] {
            guard value.isOfType("s") else { throw .invalidArguments("the label is a string") }
            label = value.string
        }
        try Self.checkLabel(label)
        let collection = try registry.create(label: label)
        collectionsCreated[caller, default: 0] += 1
        try export.export(collection.path)
        if !alias.isEmpty { try registry.setAlias(alias, to: collection) }
        emitCollectionSignal("CollectionCreated", collection)
        return [.objectPath(collection.path), .objectPath(ObjectPaths.none)]
    }

    static func checkLabel(_ label: String) throws(DBusError) {
        guard label.utf8.count <= Limits.maxTextBytes else { throw .limitsExceeded("a label is at most \(Limits.maxTextBytes) bytes") }
    }

    /// Items of every unlocked collection whose attributes include `attributes`, through each
    /// vault's attribute index. A locked collection's items and attributes are encrypted, so it
    /// cannot say which match: with a prompter, its ``LockedMatch`` is listed as locked, so that
    /// libsecret calls `Unlock` on it; with none, nothing would unlock it, and nothing is listed.
    /// Of an unlocked collection, the items the caller may not read now are listed as locked
    /// (`confirm`), or not at all (`strict`).
    private func search(_ attributes: [String: String], connection: String, caller: Caller?) -> (unlocked: [String], locked: [String]) {
        var unlocked: [String] = [], locked: [String] = []
        for collection in registry.all() {
            if let found = try? visibleItems(in: collection, matching: attributes, connection: connection, caller: caller) {
                unlocked += found.readable
                locked += found.locked
            } else if prompter != nil, registry.isLocked(collection) {
                locked.append(lockedMatches.match(for: connection, in: collection, attributes: attributes).path)
            }
        }
        return (unlocked, locked)
    }

    /// Unlocks what needs no passphrase now; for the rest, a prompt (whose `Prompt` runs the
    /// prompter). Unknown objects are left out, as the specification allows. An item of an
    /// unlocked collection that the caller may not read now gets a prompt that asks the person
    /// (``runAccessPrompt(_:for:)``); in one call with a locked collection, such an item is left
    /// out, and stays locked until unlocked again.
    private func unlock(_ objects: [String], connection: String, caller identity: Caller?) throws(DBusError) -> [Variant] {
        let caller = connection
        var unlocked: [String] = []
        var waiting: [PendingPrompt.Target] = []
        var needed: [ServedCollection] = []
        var requests: [AccessRequest] = []
        for path in objects {
            let target: PendingPrompt.Target
            if let match = lockedMatches.match(at: path) {
                target = .match(match)
            } else if let collection = try? owningCollection(of: path) {
                target = .object(path, collection)
            } else {
                continue
            }
            let wasLocked = registry.isLocked(target.collection)
            if registry.unlockWithoutPrompt(target.collection) {
                if wasLocked { announceLockState(of: [target.collection]) }
                if let request = accessRequest(for: path, in: target.collection, connection: connection, caller: identity) {
                    requests.append(request)
                    continue
                }
                unlocked += unlockedPaths(of: target, for: connection)
            } else {
                waiting.append(target)
                if !needed.contains(target.collection) { needed.append(target.collection) }
            }
        }
        if needed.isEmpty, !requests.isEmpty {
            let (prompt, evicted) = try prompts.add(owner: caller, collections: [], targets: [], alreadyUnlocked: unlocked)
            // The person is asked about so many items at most: the others stay locked.
            prompt.accessRequests = Array(requests.prefix(PendingPrompt.maxAccessRequests))
            evicted.forEach(endEvicted)
            return [.objectPaths(unlocked), .objectPath(prompt.path)]
        }
        guard !needed.isEmpty else { return [.objectPaths(unlocked), .objectPath(ObjectPaths.none)] }
        // A created collection opens with its key from the login collection: that one is asked for.
        let login = registry.login
        if needed.contains(where: { $0.kind == .created }), !needed.contains(login), registry.isLocked(login) { needed.insert(login, at: 0) }
        let (prompt, evicted) = try prompts.add(owner: caller, collections: needed, targets: waiting, alreadyUnlocked: unlocked)
        evicted.forEach(endEvicted)
        return [.objectPaths(unlocked), .objectPath(prompt.path)]
    }

    /// What an unlock reports for an object whose collection is unlocked now: the object's path
    /// as asked, or for a locked match the items its search finds that `connection` sees, those
    /// it may read first (libsecret reads the first).
    func unlockedPaths(of target: PendingPrompt.Target, for connection: String) -> [String] {
        switch target {
        case .object(let path, _):
            return [path]
        case .match(let match):
            let found = try? visibleItems(in: match.collection, matching: match.attributes, connection: connection, caller: callers.caller(of: connection))
            return (found?.readable ?? []) + (found?.locked ?? [])
        }
    }

    /// Locks the collections named, or those of the items named: the agent forgets their keys.
    /// A share's items are not locked from here (the share refuses it): they are left out.
    private func lock(_ objects: [String]) -> [String] {
        propertyItem = nil
        var locked: [String] = []
        for path in objects {
            guard let collection = try? owningCollection(of: path), collection.kind != .upstream else { continue }
            registry.lock(collection)
            locked.append(path)
            // Locking the login collection locks the created ones too.
            announceLockState(of: collection.kind == .login ? registry.all().filter { $0.kind != .held } : [collection])
        }
        return locked
    }

    /// The collection of a collection, alias, item or locked match path.
    func owningCollection(of path: String) throws(DBusError) -> ServedCollection {
        switch ObjectPaths.target(of: path) {
        case .item(let name, _):
            guard let collection = registry.collection(named: name) else { throw .noSuchObject() }
            return collection
        case .lockedMatch:
            guard let match = lockedMatches.match(at: path) else { throw .noSuchObject() }
            return match.collection
        default:
            return try collection(at: path)
        }
    }

    /// `a{o(oayays)}`: the secret of every item named that exists, is unlocked and that the
    /// caller may read (each decision logged); the others are left out, as gnome-keyring leaves
    /// out locked items.
    private func secrets(of items: [String], session path: String, connection: String, caller: Caller?) throws(DBusError) -> Variant {
        let session = try sessions.session(at: path, for: connection)
        var entries: [Variant] = []
        for itemPath in items {
            guard var found = try? item(at: itemPath) else { continue }
            defer { found.item.secret.wipe() }
            let admitted = try withVault(found.collection) { vault throws(CofferError) in
                try admit(.read, item: found.item.attributes.id, access: found.access, at: found.rowKey, in: found.collection, vault: vault,
                          connection: connection, caller: caller)
            }
            guard admitted else { continue }
            let secret = session.encode(found.item.secret, contentType: ItemMapping.servedContentType(of: found.item.attributes))
            entries.append(.dictionaryEntry(.objectPath(itemPath), secret))
        }
        return .array(of: "{o(oayays)}", entries)
    }
}
