import CGio

/// What the exported objects are: the provider's object tree, asked for every call, property
/// and introspection on the main-loop thread.
protocol ObjectTree: AnyObject {
    /// Answers one method call (exactly once).
    func handle(_ call: MethodCall)
    func property(_ name: String, of interface: Interface, at path: String) throws(DBusError) -> Variant
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
        interfaceVTable.pointee.get_property = Trampolines.getProperty
        interfaceVTable.pointee.set_property = Trampolines.setProperty
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
            let export = ObjectExport.from(userData)
            guard let invocation, let parameters, let interface = interface.flatMap({ Interface(rawValue: String(cString: $0)) }) else {
                if let invocation { g_dbus_method_invocation_return_dbus_error(invocation, DBusError.notSupported("").name, "unknown interface") }
                return
            }
            export.tree.handle(MethodCall(
                sender: sender.map { String(cString: $0) } ?? "", path: path.map { String(cString: $0) } ?? "/",
                interface: interface, method: method.map { String(cString: $0) } ?? "",
                arguments: Variant(borrowing: parameters), invocation: invocation))
        }

        static let getProperty: GDBusInterfaceGetPropertyFunc = { _, _, path, interface, name, errorOut, userData in
            let export = ObjectExport.from(userData)
            guard let interface = interface.flatMap({ Interface(rawValue: String(cString: $0)) }), let name else { return nil }
            do throws(DBusError) {
                let value = try export.tree.property(String(cString: name), of: interface, at: path.map { String(cString: $0) } ?? "/")
                return value.withPointer { g_variant_ref($0) }
            } catch {
                coffer_set_dbus_error(errorOut, error.name, error.message)
                return nil
            }
        }

        static let setProperty: GDBusInterfaceSetPropertyFunc = { _, sender, path, interface, name, value, errorOut, userData in
            let export = ObjectExport.from(userData)
            guard let interface = interface.flatMap({ Interface(rawValue: String(cString: $0)) }), let name, let value else { return 0 }
            do throws(DBusError) {
                try export.tree.setProperty(
                    String(cString: name), of: interface, at: path.map { String(cString: $0) } ?? "/",
                    to: Variant(borrowing: value), sender: sender.map { String(cString: $0) } ?? "")
                return 1
            } catch {
                coffer_set_dbus_error(errorOut, error.name, error.message)
                return 0
            }
        }

        static let enumerate: GDBusSubtreeEnumerateFunc = { _, _, root, userData in
            let names = ObjectExport.from(userData).tree.children(of: ObjectExport.path(root, nil))
            // GDBus frees the array with g_strfreev, so it and its strings come from GLib's allocator.
            let table = g_malloc0(gsize(MemoryLayout<UnsafeMutablePointer<gchar>?>.stride * (names.count + 1)))!
                .bindMemory(to: UnsafeMutablePointer<gchar>?.self, capacity: names.count + 1)
            for (index, name) in names.enumerated() { table[index] = g_strdup(name) }
            return table
        }

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
