import CGio
import Coffer

/// The provider's own connection to the session bus: not GDBus's shared one (which libsecret
/// uses in the same process, and which would end the process when the bus goes away).
/// Created, used and closed on the main-loop thread; emitting signals is safe from any thread.
final class BusConnection {
    let pointer: OpaquePointer
    private var subscriptions: [guint] = []

    /// Connects to the session bus at `address` and registers with it (`Hello`).
    init(address: String) throws(ProviderStartError) {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw .noSessionBus("cannot connect to the session bus: \(GError.take(error))")
        }
        g_dbus_connection_set_exit_on_close(connection, 0)
        pointer = connection
    }

    deinit {
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

    /// Asks the bus for `name`, never queueing: `DO_NOT_QUEUE`, and `ALLOW_REPLACEMENT` so that a
    /// later `--replace` can take it over; with `replace`, `REPLACE_EXISTING` as well.
    func requestName(_ name: String, replace: Bool) throws(ProviderStartError) -> NameRequest {
        let allowReplacement: UInt32 = 0x1, replaceExisting: UInt32 = 0x2, doNotQueue: UInt32 = 0x4
        let flags = allowReplacement | doNotQueue | (replace ? replaceExisting : 0)
        let reply = try callBus("RequestName", [.string(name), Variant(taking: g_variant_new_uint32(flags))])
        switch reply.child(0).uint32 {
        case 1, 4: return .owned  // primary owner, already owner
        default: return .taken
        }
    }

    /// Who owns `name`: its unique name and process, for a clear message.
    func owner(of name: String) -> (uniqueName: String, pid: UInt32?)? {
        guard let reply = try? callBus("GetNameOwner", [.string(name)]) else { return nil }
        let unique = reply.child(0).string
        let pid = (try? callBus("GetConnectionUnixProcessID", [.string(unique)])).map { $0.child(0).uint32 }
        return (unique, pid)
    }

    /// Calls `method` of the bus itself (`org.freedesktop.DBus`), waiting up to 5 s.
    func callBus(_ method: String, _ arguments: [Variant]) throws(ProviderStartError) -> Variant {
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

    /// Broadcasts a signal. Safe from any thread.
    func emit(_ signal: String, of interface: String, at path: String, _ arguments: [Variant]) {
        Variant.tuple(arguments).withPointer { _ = g_dbus_connection_emit_signal(pointer, nil, path, interface, signal, $0, nil) }
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

    /// Flushes what is queued and closes the connection; the bus then releases its names.
    func close() {
        g_dbus_connection_flush_sync(pointer, nil, nil)
        g_dbus_connection_close_sync(pointer, nil, nil)
    }
}
