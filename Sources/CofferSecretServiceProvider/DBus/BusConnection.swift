import CGio
import Coffer
import Glibc

/// The provider's own connection to the session bus: not GDBus's shared one (which libsecret
/// uses in the same process, and which would end the process when the bus goes away).
/// Created, used and closed on the main-loop thread; emitting signals is safe from any thread.
final class BusConnection {
    let pointer: OpaquePointer
    private var subscriptions: [guint] = []
    /// The handler of GDBus's `closed` signal, while connected.
    private var closedHandler: gulong = 0

    /// Connects to the session bus at `address` and registers with it (`Hello`), only when it
    /// is the user's own bus: the address passes ``OwnBusAddress``, and the daemon at the other
    /// end of the socket runs as this user (its credentials, `SO_PEERCRED`), checked before
    /// anything is sent to it.
    init(address: String) throws(ProviderStartError) {
        if let refusal = OwnBusAddress.refusal(of: address) { throw .notOwnBus(refusal) }
        var error: UnsafeMutablePointer<GError>?
        var guid: UnsafeMutablePointer<gchar>?
        guard let stream = g_dbus_address_get_stream_sync(address, &guid, nil, &error) else {
            throw .noSessionBus("cannot connect to the session bus: \(GError.take(error))")
        }
        defer {
            g_free(guid)
            g_object_unref(UnsafeMutableRawPointer(stream))
        }
        if let refusal = Self.daemonRefusal(stream) { throw .notOwnBus(refusal) }
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        // The guid argument is a server's own; a client checks the address's against the server's below.
        guard let connection = g_dbus_connection_new_sync(stream, nil, flags, nil, nil, &error) else {
            throw .noSessionBus("cannot connect to the session bus: \(GError.take(error))")
        }
        g_dbus_connection_set_exit_on_close(connection, 0)
        if let guid, g_strcmp0(guid, g_dbus_connection_get_guid(connection)) != 0 {
            g_object_unref(UnsafeMutableRawPointer(connection))
            throw .notOwnBus("the session bus answering at the address is not the one the address names (its guid differs)")
        }
        pointer = connection
    }

    /// Why the daemon at the other end of `stream` is not this user's, or `nil` when it is.
    private static func daemonRefusal(_ stream: UnsafeMutablePointer<GIOStream>) -> String? {
        guard g_type_check_instance_is_a(UnsafeMutableRawPointer(stream).assumingMemoryBound(to: GTypeInstance.self), g_socket_connection_get_type()) != 0,
              let socket = g_socket_connection_get_socket(UnsafeMutableRawPointer(stream).assumingMemoryBound(to: GSocketConnection.self))
        else { return "the session bus is not reached through a socket" }
        var error: UnsafeMutablePointer<GError>?
        guard let credentials = g_socket_get_credentials(socket, &error) else {
            return "cannot tell who runs the session bus: \(GError.take(error))"
        }
        defer { g_object_unref(UnsafeMutableRawPointer(credentials)) }
        let uid = g_credentials_get_unix_user(credentials, &error)
        guard uid != uid_t(bitPattern: -1) else { return "cannot tell who runs the session bus: \(GError.take(error))" }
        guard uid == geteuid() else {
            return "the session bus is run by uid \(uid), not by this user (uid \(geteuid())); the Secret Service runs only on the user's own bus"
        }
        return nil
    }

    deinit {
        stopWatchingForClose()
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(pointer, id) }
        g_object_unref(UnsafeMutableRawPointer(pointer))
    }

    /// This connection's unique name (`:1.7`).
    var uniqueName: String { g_dbus_connection_get_unique_name(pointer).map { String(cString: $0) } ?? "" }

    // MARK: The name

    /// How ``requestName(_:replace:)`` went.
    enum NameRequest: Equatable {
        case owned
        /// Another connection owns the name and keeps it.
        case taken
    }

    /// Asks the bus for `name`, never queueing (`DO_NOT_QUEUE`), and without
    /// `ALLOW_REPLACEMENT`, as gnome-keyring asks for it: no other connection can take it over
    /// and receive every client's calls. With `replace`, `REPLACE_EXISTING`: the name is taken
    /// from an owner that allows replacement.
    func requestName(_ name: String, replace: Bool) throws(ProviderStartError) -> NameRequest {
        let replaceExisting: UInt32 = 0x2, doNotQueue: UInt32 = 0x4
        let flags = doNotQueue | (replace ? replaceExisting : 0)
        let reply = try callBus("RequestName", [.string(name), Variant(taking: g_variant_new_uint32(flags))])
        switch reply.child(0).uint32 {
        case 1, 4: return .owned  // primary owner, already owner
        default: return .taken
        }
    }

    /// Gives `name` back to the bus, which then tells this connection `NameLost`.
    func releaseName(_ name: String) throws(ProviderStartError) {
        _ = try callBus("ReleaseName", [.string(name)])
    }

    /// Who owns `name`: its unique name and process, for a clear message.
    func owner(of name: String) -> (uniqueName: String, pid: UInt32?)? {
        guard let reply = try? callBus("GetNameOwner", [.string(name)]) else { return nil }
        let unique = reply.child(0).string
        let pid = (try? callBus("GetConnectionUnixProcessID", [.string(unique)])).map { $0.child(0).uint32 }
        return (unique, pid)
    }

    /// The user id of the connection `name`, as the bus knows it; `nil` when the bus does not
    /// answer (the connection has gone).
    func unixUser(of name: String) -> uid_t? {
        (try? callBus("GetConnectionUnixUser", [.string(name)])).map { $0.child(0).uint32 }
    }

    /// The unique names of the connections on the bus now.
    func connectionNames() -> [String] {
        guard let reply = try? callBus("ListNames", []) else { return [] }
        return reply.child(0).children.map(\.string).filter { $0.hasPrefix(":") }
    }

    private func callBus(_ method: String, _ arguments: [Variant]) throws(ProviderStartError) -> Variant {
        var error: UnsafeMutablePointer<GError>?
        let reply = Variant.tuple(arguments).withPointer { parameters in
            g_dbus_connection_call_sync(
                pointer, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", method,
                parameters, nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error)
        }
        guard let reply else { throw .busRefused("\(method): \(GError.take(error))") }
        return Variant(taking: reply)
    }

    // MARK: Signals

    /// Sends a signal to each of `destinations` (unique names), never broadcast. Safe from any thread.
    func emit(_ signal: String, of interface: String, at path: String, _ arguments: [Variant], to destinations: [String]) {
        Variant.tuple(arguments).withPointer { arguments in
            for destination in destinations {
                _ = g_dbus_connection_emit_signal(pointer, destination, path, interface, signal, arguments, nil)
            }
        }
    }

    /// Calls `handler` with the arguments of every signal the bus itself sends named `member`
    /// (`NameOwnerChanged`, `NameLost`), on the main-loop thread.
    func subscribeToBus(_ member: String, _ handler: @escaping (Variant) -> Void) {
        let box = Unmanaged.passRetained(SignalHandler(handler)).toOpaque()
        let id = g_dbus_connection_signal_subscribe(
            pointer, "org.freedesktop.DBus", "org.freedesktop.DBus", member, "/org/freedesktop/DBus", nil, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, _, _, _, _, parameters, userData in
                guard let parameters else { return }
                Unmanaged<SignalHandler>.fromOpaque(userData!).takeUnretainedValue().handler(Variant(borrowing: parameters))
            },
            box, { userData in Unmanaged<SignalHandler>.fromOpaque(userData!).release() })
        subscriptions.append(id)
    }

    private final class SignalHandler {
        let handler: (Variant) -> Void
        init(_ handler: @escaping (Variant) -> Void) { self.handler = handler }
    }

    /// Calls `handler` once, on the main-loop thread, when the bus closes the connection (it
    /// ended, or dropped this connection); not when ``close()`` closes it.
    func whenClosedByBus(_ handler: @escaping () -> Void) {
        let closed: @convention(c) (OpaquePointer?, gboolean, UnsafeMutablePointer<GError>?, gpointer?) -> Void = { _, _, _, userData in
            Unmanaged<ClosedHandler>.fromOpaque(userData!).takeUnretainedValue().run()
        }
        let box = Unmanaged.passRetained(ClosedHandler(handler)).toOpaque()
        closedHandler = g_signal_connect_data(
            UnsafeMutableRawPointer(pointer), "closed", unsafeBitCast(closed, to: GCallback.self), box,
            { userData, _ in Unmanaged<ClosedHandler>.fromOpaque(userData!).release() }, GConnectFlags(rawValue: 0))
    }

    private final class ClosedHandler {
        private var handler: (() -> Void)?
        init(_ handler: @escaping () -> Void) { self.handler = handler }

        /// Runs the handler the first time only.
        func run() {
            let once = handler
            handler = nil
            once?()
        }
    }

    private func stopWatchingForClose() {
        if closedHandler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(pointer), closedHandler) }
        closedHandler = 0
    }

    /// Flushes what is queued and closes the connection; the bus then releases its names.
    func close() {
        stopWatchingForClose()
        g_dbus_connection_flush_sync(pointer, nil, nil)
        g_dbus_connection_close_sync(pointer, nil, nil)
    }
}
