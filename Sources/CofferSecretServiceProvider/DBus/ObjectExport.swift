import CGio

/// What the exported objects are: the provider's object tree, asked for every call, property
/// and introspection on the main-loop thread.
protocol ObjectTree: AnyObject {
    /// Whether the connection `sender` may call at all; another is answered `AccessDenied` and
    /// is shown no object, property or child.
    func admits(_ sender: String) -> Bool
    /// Answers one method call (exactly once).
    func handle(_ call: MethodCall)
    /// `sender`: the connection that asks, which may see some items otherwise than another
    /// (per-application access); `nil` for a value sent to every connection.
    func property(_ name: String, of interface: Interface, at path: String, sender: String?) throws(DBusError) -> Variant
    func setProperty(_ name: String, of interface: Interface, at path: String, to value: Variant, sender: String) throws(DBusError)
    /// The interfaces an object at `path` would have, judged by the path's shape alone, so
    /// that a call to a missing object reaches the provider and gets a typed error.
    func interfaces(at path: String) -> [Interface]
    /// The names of the nodes below `path` that exist now, for introspection.
    func children(of path: String) -> [String]
}

/// The provider's objects on a GDBus connection: each part of the tree is a GDBus subtree,
/// whose nodes are resolved by path when a call arrives, so ten thousand items cost no
/// registrations. A subtree serves its root and the nodes one level below it; the provider
/// registers one per collection for its items.
///
/// Property calls (`org.freedesktop.DBus.Properties` `Get`, `GetAll`, `Set`) come to the method
/// handler too (the vtable has no property functions), and `Introspect` is taken from GDBus by
/// ``IntrospectionFilter`` and answered here (``answerIntrospect(_:)``), so that every call is
/// checked against ``ObjectTree/admits(_:)`` before it is answered.
///
/// Registrations are made on the main-loop thread, so GDBus calls back on it. Owned by that
/// thread; ``unexportAll()`` runs there before the connection closes.
final class ObjectExport {
    private let connection: OpaquePointer
    private unowned let tree: any ObjectTree
    private let interfaceVTable: UnsafeMutablePointer<GDBusInterfaceVTable>
    private let subtreeVTable: UnsafeMutablePointer<GDBusSubtreeVTable>
    private var registrations: [String: guint] = [:]

    init(connection: OpaquePointer, tree: any ObjectTree) {
        self.connection = connection
        self.tree = tree
        interfaceVTable = .allocate(capacity: 1)
        interfaceVTable.initialize(to: GDBusInterfaceVTable())
        interfaceVTable.pointee.method_call = Trampolines.methodCall
        subtreeVTable = .allocate(capacity: 1)
        subtreeVTable.initialize(to: GDBusSubtreeVTable())
        subtreeVTable.pointee.enumerate = Trampolines.enumerate
        subtreeVTable.pointee.introspect = Trampolines.introspect
        subtreeVTable.pointee.dispatch = Trampolines.dispatch
    }

    deinit {
        precondition(registrations.isEmpty, "unexportAll() must run before the export goes")
        interfaceVTable.deallocate()
        subtreeVTable.deallocate()
    }

    /// Serves `path` and the nodes one level below it. Exporting a path twice does nothing.
    func export(_ path: String) throws(DBusError) {
        guard registrations[path] == nil else { return }
        var error: UnsafeMutablePointer<GError>?
        let id = g_dbus_connection_register_subtree(
            connection, path, subtreeVTable, G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES,
            Unmanaged.passUnretained(self).toOpaque(), nil, &error)
        guard id != 0 else { throw DBusError.failed("cannot export \(path): \(GError.take(error))") }
        registrations[path] = id
    }

    func unexport(_ path: String) {
        if let id = registrations.removeValue(forKey: path) { g_dbus_connection_unregister_subtree(connection, id) }
    }

    func unexportAll() {
        for path in Array(registrations.keys) { unexport(path) }
    }

    static let propertiesInterface = "org.freedesktop.DBus.Properties"

    /// Answers an `Introspect` call (a message ``IntrospectionFilter`` took, whose reference
    /// this releases): `AccessDenied` for a caller that is not admitted; else the document GDBus
    /// would give, the object's interfaces and the nodes below it (subtrees registered there,
    /// and the tree's children of a subtree's root).
    func answerIntrospect(_ message: IncomingMessage) {
        defer { g_object_unref(UnsafeMutableRawPointer(message.pointer)) }
        let sender = g_dbus_message_get_sender(message.pointer).map { String(cString: $0) } ?? ""
        let reply: OpaquePointer
        if tree.admits(sender) {
            let path = g_dbus_message_get_path(message.pointer).map { String(cString: $0) } ?? "/"
            reply = g_dbus_message_new_method_reply(message.pointer)
            let document = IntrospectionDocument.xml(interfaces: tree.interfaces(at: path), children: childNodes(of: path))
            Variant.tuple([.string(document)]).withPointer { g_dbus_message_set_body(reply, $0) }
        } else {
            let denied = DBusError.accessDenied("the Secret Service serves only the user who runs it")
            reply = g_dbus_message_new_method_error_literal(message.pointer, denied.name, denied.message)
        }
        g_dbus_connection_send_message(connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(reply))
    }

    /// The nodes below `path`: the next element of every registered subtree under it, and the
    /// tree's children when `path` is a subtree's root.
    private func childNodes(of path: String) -> [String] {
        let prefix = path == "/" ? "/" : path + "/"
        var names = Set(registrations.keys.compactMap { root in
            root.hasPrefix(prefix) ? root.dropFirst(prefix.count).split(separator: "/").first.map(String.init) : nil
        })
        if registrations[path] != nil { names.formUnion(tree.children(of: path)) }
        return names.sorted()
    }

    /// Answers `Get`, `GetAll` or `Set` of `org.freedesktop.DBus.Properties` (GDBus has checked
    /// the signature, and for `Get` and `Set` that the property exists with that access and,
    /// for `Set`, its type). `GetAll` leaves out the properties that cannot be read now, as
    /// GDBus's own `GetAll` does.
    fileprivate func answerProperties(_ method: String, _ arguments: Variant, at path: String, sender: String, invocation: OpaquePointer) {
        guard let interface = Interface(rawValue: arguments.child(0).string) else {
            let error = DBusError.invalidArguments("no such interface")
            return g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
        }
        let call = MethodCall(sender: sender, path: path, interface: interface, method: method, arguments: arguments, answering: .invocation(invocation))
        do throws(DBusError) {
            switch method {
            case "Get":
                call.reply([.boxed(try tree.property(arguments.child(1).string, of: interface, at: path, sender: sender))])
            case "GetAll":
                let entries = interface.readableProperties.compactMap { name in
                    (try? tree.property(name, of: interface, at: path, sender: sender)).map { Variant.dictionaryEntry(.string(name), .boxed($0)) }
                }
                call.reply([.array(of: "{sv}", entries)])
            case "Set":
                try tree.setProperty(arguments.child(1).string, of: interface, at: path, to: arguments.child(2).unboxed, sender: sender)
                call.reply([])
            default:
                throw .notSupported("no method \(method)")
            }
        } catch {
            call.fail(error)
        }
    }

    fileprivate static func from(_ userData: gpointer?) -> ObjectExport {
        Unmanaged<ObjectExport>.fromOpaque(userData!).takeUnretainedValue()
    }

    /// The object path a subtree callback is about. GDBus gives `dispatch` and `enumerate` the
    /// subtree's root, but gives `introspect` the object's own path when it routes a method
    /// call (and the root when it answers `Introspect`): a path that is a registered root is
    /// a root. Collection names never clash with the names of the roots (``ObjectPaths``).
    fileprivate func objectPath(_ path: UnsafePointer<gchar>?, _ node: UnsafePointer<gchar>?) -> String {
        let given = path.map { String(cString: $0) } ?? "/"
        return registrations[given] != nil ? Self.path(path, node) : given
    }

    /// The object path of `node` in the subtree at `root`.
    fileprivate static func path(_ root: UnsafePointer<gchar>?, _ node: UnsafePointer<gchar>?) -> String {
        let base = root.map { String(cString: $0) } ?? "/"
        guard let node else { return base }
        return base + "/" + String(cString: node)
    }

    /// The C functions GDBus calls; each finds the export through its user data.
    private enum Trampolines {
        static let methodCall: GDBusInterfaceMethodCallFunc = { _, sender, path, interface, method, parameters, invocation, userData in
            guard let invocation else { return }
            let size = parameters.map { Int(g_variant_get_size($0)) } ?? 0
            defer { LargeCallMemory.release(afterCallOf: size) }
            let export = ObjectExport.from(userData)
            let sender = sender.map { String(cString: $0) } ?? ""
            guard export.tree.admits(sender) else {
                let denied = DBusError.accessDenied("the Secret Service serves only the user who runs it")
                return g_dbus_method_invocation_return_dbus_error(invocation, denied.name, denied.message)
            }
            let interfaceName = interface.map { String(cString: $0) } ?? ""
            let path = path.map { String(cString: $0) } ?? "/", method = method.map { String(cString: $0) } ?? ""
            guard let parameters else {
                return g_dbus_method_invocation_return_dbus_error(invocation, DBusError.notSupported("").name, "no arguments")
            }
            let arguments = Variant(borrowing: parameters)
            if interfaceName == ObjectExport.propertiesInterface {
                return export.answerProperties(method, arguments, at: path, sender: sender, invocation: invocation)
            }
            guard let interface = Interface(rawValue: interfaceName) else {
                return g_dbus_method_invocation_return_dbus_error(invocation, DBusError.notSupported("").name, "unknown interface")
            }
            export.tree.handle(MethodCall(sender: sender, path: path, interface: interface, method: method, arguments: arguments, answering: .invocation(invocation)))
        }

        static let enumerate: GDBusSubtreeEnumerateFunc = { _, _, root, userData in
            let names = ObjectExport.from(userData).tree.children(of: ObjectExport.path(root, nil))
            // GDBus frees the array with g_strfreev, so it and its strings come from GLib's allocator.
            let table = g_malloc0(gsize(MemoryLayout<UnsafeMutablePointer<gchar>?>.stride * (names.count + 1)))!
                .bindMemory(to: UnsafeMutablePointer<gchar>?.self, capacity: names.count + 1)
            for (index, name) in names.enumerated() { table[index] = g_strdup(name) }
            return table
        }

        // GDBus asks it to route every call (the `Introspect` method itself never comes here: ``IntrospectionFilter``).
        static let introspect: GDBusSubtreeIntrospectFunc = { _, _, path, node, userData in
            let export = ObjectExport.from(userData)
            let interfaces = export.tree.interfaces(at: export.objectPath(path, node))
            guard !interfaces.isEmpty else { return nil }
            // GDBus unrefs each element and frees the array with g_free.
            let table = g_malloc0(gsize(MemoryLayout<UnsafeMutablePointer<GDBusInterfaceInfo>?>.stride * (interfaces.count + 1)))!
                .bindMemory(to: UnsafeMutablePointer<GDBusInterfaceInfo>?.self, capacity: interfaces.count + 1)
            for (index, interface) in interfaces.enumerated() { table[index] = g_dbus_interface_info_ref(interface.info) }
            return table
        }

        static let dispatch: GDBusSubtreeDispatchFunc = { _, _, root, interface, node, outUserData, userData in
            let export = ObjectExport.from(userData)
            guard let interface = interface.flatMap({ Interface(rawValue: String(cString: $0)) }),
                  export.tree.interfaces(at: ObjectExport.path(root, node)).contains(interface)
            else { return nil }
            outUserData?.pointee = userData
            return UnsafePointer(export.interfaceVTable)
        }
    }
}

extension GError {
    /// The message of an error GLib handed over, freeing it.
    static func take(_ error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "unknown error" }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }
}
