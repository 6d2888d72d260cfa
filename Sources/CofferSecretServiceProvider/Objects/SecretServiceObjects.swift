import CGio
import Coffer
import CofferAgent
import CofferBase
import Foundation

/// The object tree of the Secret Service API 0.2 on the vaults: the service, its collections,
/// their items, sessions and prompts. Lives on the main-loop thread (it is the loop's
/// resident), so its state needs no lock.
///
/// Every method answers with its reply or a typed D-Bus error; a vault error never carries a
/// secret or a name into the reply (``DBusError/init(_:)``).
final class SecretServiceObjects: ObjectTree {
    let bus: BusConnection
    /// Who is on the bus: only the agent's own user is served, and sent signals.
    let peers: BusPeers
    let registry: CollectionRegistry
    let prompter: PrompterCommand?
    /// Prompts run their prompter one at a time.
    let prompterTurns = PrompterTurns()
    private(set) var export: ObjectExport!
    private var introspection: IntrospectionFilter?
    private var workerThreadCalls: WorkerThreadCalls?
    var sessions = SessionTable()
    var prompts = PromptTable()
    var lockedMatches = LockedMatchTable()
    /// How many collections each connection has created while connected.
    var collectionsCreated: [String: Int] = [:]
    /// The item whose properties are being read: `GetAll` asks for six in one dispatch, and one
    /// read of the record answers them all. Dropped when the loop goes idle and on every write.
    var propertyItem: (path: String, attributes: ItemAttributes, access: ItemAccess, policy: AccessPolicy?)?
    /// Where prompt completions come back to (this object, on the loop thread).
    let loop: MainLoopThread<SecretServiceObjects>
    /// Who is behind each unique name that calls.
    let callers: BusCallers
    /// Decides and logs who may use which item (``CofferAgent/AccessGate``).
    let gate: AccessGate
    /// The items each connection may read after a `once` answer.
    var grants = ConnectionGrants()

    init(bus: BusConnection, registry: CollectionRegistry, prompter: PrompterCommand?, loop: MainLoopThread<SecretServiceObjects>) {
        self.bus = bus
        self.peers = BusPeers(bus: bus)
        self.registry = registry
        self.prompter = prompter
        self.loop = loop
        callers = BusCallers(bus: bus)
        gate = AccessGate(prompter: prompter, frontDoor: .secretService)
    }

    /// Exports the tree and follows the bus's news of connections that join and leave.
    func exportObjects() throws(DBusError) {
        export = ObjectExport(connection: bus.pointer, tree: self)
        introspection = IntrospectionFilter(connection: bus.pointer) { [loop] message in
            loop.perform { objects in objects.export.answerIntrospect(message) }
        }
        // After the introspection filter, which takes `Introspect` calls before this one sees them.
        let connection = bus.pointer
        workerThreadCalls = WorkerThreadCalls(connection: connection) { [loop] message in
            loop.withResidentIfIdle { objects in objects.answerOnWorkerThread(message, connection: connection) } ?? false
        }
        for path in [ObjectPaths.service, ObjectPaths.collections, ObjectPaths.aliases, ObjectPaths.sessions, ObjectPaths.prompts] {
            try export.export(path)
        }
        try exportCollections()
        bus.subscribeToBus("NameOwnerChanged") { [unowned self] arguments in
            guard arguments.count == 3, arguments.isOfType("(sss)") else { return }
            let name = arguments.child(0).string
            guard name.hasPrefix(":") else { return }
            guard arguments.child(2).string.isEmpty else { return peers.joined(name) }
            peers.left(name)
            collectionsCreated[name] = nil
            sessions.closeAll(of: name)
            prompts.removeAll(of: name)
            lockedMatches.removeAll(of: name)
            grants.removeAll(of: name)
            callers.forget(name)
        }
        peers.noteConnectionsOnTheBus()
    }

    /// Exports every collection's subtree (its items), for collections that appeared since.
    func exportCollections() throws(DBusError) {
        for collection in registry.all() { try export.export(collection.path) }
    }

    func unexportAll() {
        for path in prompts.paths { prompts.remove(path)?.run?.cancel() }
        introspection?.remove()
        workerThreadCalls?.remove()
        workerThreadCalls = nil
        export?.unexportAll()
    }

    /// Answers a call ``WorkerThreadCalls`` took (a service method with its signature checked),
    /// on GDBus's worker thread while the main loop waits: as ``handle(_:)`` answers it, when the
    /// sender is known to be the user's and its program has been worked out (both need calls to
    /// the bus, which would wait for the worker thread). Returns whether it answered.
    func answerOnWorkerThread(_ message: IncomingMessage, connection: OpaquePointer) -> Bool {
        guard export != nil, let sender = g_dbus_message_get_sender(message.pointer).map({ String(cString: $0) }),
              peers.isKnownToBeOwn(sender), callers.isKnown(sender),
              let method = g_dbus_message_get_member(message.pointer).map({ String(cString: $0) }),
              let body = g_dbus_message_get_body(message.pointer)
        else { return false }
        handle(MethodCall(
            sender: sender, path: ObjectPaths.service, interface: .service, method: method, arguments: Variant(borrowing: body),
            answering: .message(message, connection: connection)))
        return true
    }

    // MARK: ObjectTree

    func admits(_ sender: String) -> Bool { peers.admits(sender) }

    func handle(_ call: MethodCall) {
        call.caller = callers.caller(of: call.sender)
        do throws(DBusError) {
            let reply: [Variant] = switch call.interface {
            case .service: try serviceCall(call)
            case .collection: try collectionCall(call)
            case .item: try itemCall(call)
            case .session: try sessionCall(call)
            case .prompt: try promptCall(call)
            }
            call.reply(reply)
        } catch {
            call.fail(error)
        }
    }

    func property(_ name: String, of interface: Interface, at path: String, sender: String?) throws(DBusError) -> Variant {
        let caller = sender.flatMap(callers.caller(of:))
        switch interface {
        case .service: return try serviceProperty(name)
        case .collection: return try collectionProperty(name, at: path, connection: sender, caller: caller)
        case .item: return try itemProperty(name, at: path, connection: sender, caller: caller)
        case .session, .prompt: throw .invalidArguments("no property \(name)")
        }
    }

    func setProperty(_ name: String, of interface: Interface, at path: String, to value: Variant, sender: String) throws(DBusError) {
        switch interface {
        case .collection: try setCollectionProperty(name, at: path, to: value)
        case .item: try setItemProperty(name, at: path, to: value, connection: sender, caller: callers.caller(of: sender))
        case .service, .session, .prompt: throw .accessDenied("the property \(name) is read-only")
        }
    }

    func interfaces(at path: String) -> [Interface] {
        switch ObjectPaths.target(of: path) {
        case .service: [.service]
        case .collection, .alias: [.collection]
        case .item, .lockedMatch: [.item]
        case .session: [.session]
        case .prompt: [.prompt]
        case .other: []
        }
    }

    func children(of path: String) -> [String] {
        switch path {
        case ObjectPaths.service: return ["collection", "aliases", "session", "prompt"]
        case ObjectPaths.collections: return registry.all().map(\.name)
        case ObjectPaths.aliases: return ["default"]
        case ObjectPaths.sessions, ObjectPaths.prompts: return []
        default:
            guard case .collection(let name) = ObjectPaths.target(of: path), let collection = registry.collection(named: name),
                  let items = try? withVault(collection, { vault throws(CofferError) in try vault.storedItems(withAttributes: [:]) })
            else { return [] }
            return items.map { Hex.encode($0.rowKey) }
        }
    }

    // MARK: Resolving paths

    /// The collection at `path`: a collection's own path or an alias's.
    func collection(at path: String) throws(DBusError) -> ServedCollection {
        switch ObjectPaths.target(of: path) {
        case .collection(let name):
            guard let collection = registry.collection(named: name) else { throw .noSuchObject() }
            return collection
        case .alias(let alias):
            guard let collection = registry.collection(forAlias: alias) else { throw .noSuchObject("no collection has the alias \(alias)") }
            return collection
        default:
            throw .noSuchObject()
        }
    }

    /// The item at `path` and its owner and access list, read from its unlocked collection:
    /// `IsLocked` while the collection is locked, `NoSuchObject` when the item is not there.
    /// Whether the caller may use it is ``permittedItem(at:for:connection:caller:)``'s business.
    func item(at path: String) throws(DBusError) -> FoundItem {
        guard case .item(let name, let rowKey) = ObjectPaths.target(of: path) else { throw .noSuchObject() }
        guard let collection = registry.collection(named: name) else { throw .noSuchObject() }
        guard let found = try withVault(collection, { vault throws(CofferError) in try vault.storedItemWithAccess(atRowKey: rowKey) }) else {
            throw .noSuchObject()
        }
        return (collection, rowKey, found.item, found.access)
    }

    /// The paths of the collection's items whose attributes include `attributes` (all of them
    /// for none), through the vault's attribute index: `IsLocked` while it is locked.
    func itemPaths(in collection: ServedCollection, matching attributes: [String: String]) throws(DBusError) -> [String] {
        let found = try withVault(collection) { vault throws(CofferError) in try vault.storedItems(withAttributes: attributes) }
        return found.map { ObjectPaths.item($0.rowKey, in: collection.name) }
    }

    /// Runs `body` on the collection's items as clients may see them: its unlocked vault without
    /// the provider's own records (``ClientVault``), or what a share serves (``UpstreamItems``).
    /// A vault that finds itself locked (another process rotated its key) is forgotten, and the
    /// caller told `IsLocked`, as it is when a share stops answering. A write a share refuses is
    /// `AccessDenied`.
    func withVault<R>(_ collection: ServedCollection, _ body: (any CollectionItems) throws(CofferError) -> R) throws(DBusError) -> R {
        guard let items = registry.items(of: collection) else { throw .isLocked() }
        do throws(CofferError) {
            return try body(items)
        } catch .locked {
            registry.lock(collection)
            throw .isLocked()
        } catch .accessDenied where collection.kind == .upstream {
            throw .accessDenied(UpstreamItems.refusedWrite)
        } catch {
            throw DBusError(error)
        }
    }

    /// The secret a client sent, as `(oayays)`, decoded in its session (which must be the
    /// caller's): the plaintext, in secure memory, and its content type.
    func incomingSecret(_ secret: Variant, from caller: String) throws(DBusError) -> (value: SecureBytes, contentType: String) {
        let session = try sessions.session(at: secret.child(0).string, for: caller)
        let value = secret.child(2)
        let size = value.withBytes { $0.count }
        guard size <= Limits.maxSecretBytes + AES128CBC.blockLength else {
            throw .limitsExceeded("the secret is \(size) bytes; the limit is \(Limits.maxSecretBytes)")
        }
        return (try session.decode(parameters: secret.child(1).byteArray, value: value), secret.child(3).string)
    }

    // MARK: Signals

    func emitItemSignal(_ signal: String, item path: String, in collection: ServedCollection) {
        propertyItem = nil
        emit(signal, of: Interface.collection.rawValue, at: collection.path, [.objectPath(path)])
        propertiesChanged(of: .collection, at: collection.path, invalidating: ["Items", "Modified"])
    }

    func emitCollectionSignal(_ signal: String, _ collection: ServedCollection) {
        emit(signal, of: Interface.service.rawValue, at: ObjectPaths.service, [.objectPath(collection.path)])
        propertiesChanged(of: .service, at: ObjectPaths.service, invalidating: ["Collections"])
    }

    /// Sends a signal to each connection of the agent's user (``BusPeers/ownConnections``),
    /// never broadcast: another user's connection on the bus sees no object path in one.
    func emit(_ signal: String, of interface: String, at path: String, _ arguments: [Variant]) {
        bus.emit(signal, of: interface, at: path, arguments, to: peers.ownConnections)
    }

    /// `org.freedesktop.DBus.Properties.PropertiesChanged`: the properties in `changed` with
    /// their new values, those in `names` without (clients read them again when they need them).
    func propertiesChanged(of interface: Interface, at path: String, changed: [String: Variant] = [:], invalidating names: [String] = []) {
        let values = changed.sorted { $0.key < $1.key }.map { Variant.dictionaryEntry(.string($0.key), .boxed($0.value)) }
        emit("PropertiesChanged", of: "org.freedesktop.DBus.Properties", at: path, [
            .string(interface.rawValue), Variant.array(of: "{sv}", values), Variant.array(of: "s", names.map(Variant.string)),
        ])
    }

    /// Tells clients that the collections were locked or unlocked, with the new values of
    /// `Locked` and `Items`: libsecret keeps both in its cache, and loads a collection's items
    /// anew (Seahorse shows them) only when `Items` comes with its value.
    func announceLockState(of collections: [ServedCollection]) {
        for collection in collections {
            var changed: [String: Variant] = [:]
            // Sent to every connection: `Items` lists what a caller that could not be told sees.
            for name in ["Locked", "Items"] { changed[name] = try? collectionProperty(name, at: collection.path, connection: nil, caller: nil) }
            propertiesChanged(of: .collection, at: collection.path, changed: changed)
        }
    }
}

extension SecureBytes {
    /// The bytes as `Data`, for the vault's API; the caller wipes it once done
    /// (``Foundation/Data/wipe()``).
    var data: Data { withUnsafeBytes { Data($0) } }
}

extension Data {
    /// Overwrites the bytes with zeros.
    mutating func wipe() { SecretMemory.zero(&self) }
}
