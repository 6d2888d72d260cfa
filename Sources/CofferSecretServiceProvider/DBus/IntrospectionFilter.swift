import CGio

/// A message GDBus received, held by one reference that its receiver releases. GDBus locks a
/// message once received, so it can be read from any thread.
struct IncomingMessage: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Takes `Introspect` calls out of GDBus's hands: GDBus would answer them itself, to any
/// connection, listing every registered subtree (a collection's name among them). A message
/// filter, which GDBus runs on its worker thread for every incoming message, hands each
/// `Introspect` call to `deliver` and drops it from GDBus's own processing; the provider answers
/// it on its main loop (``ObjectExport/answerIntrospect(_:)``). Every other message passes.
final class IntrospectionFilter {
    private let connection: OpaquePointer
    private var id: guint = 0

    /// `deliver` runs on GDBus's worker thread and owns the message's reference.
    init(connection: OpaquePointer, deliver: @escaping @Sendable (IncomingMessage) -> Void) {
        self.connection = connection
        let box = Unmanaged.passRetained(Deliver(deliver)).toOpaque()
        id = g_dbus_connection_add_filter(connection, { _, message, incoming, userData in
            guard let message else { return nil }
            guard incoming != 0, g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL,
                  g_strcmp0(g_dbus_message_get_member(message), "Introspect") == 0,
                  g_dbus_message_get_interface(message) == nil
                    || g_strcmp0(g_dbus_message_get_interface(message), "org.freedesktop.DBus.Introspectable") == 0
            else { return message }
            Unmanaged<Deliver>.fromOpaque(userData!).takeUnretainedValue().deliver(IncomingMessage(pointer: message))
            return nil
        }, box, { userData in Unmanaged<Deliver>.fromOpaque(userData!).release() })
    }

    /// Stops filtering (before the connection closes).
    func remove() {
        guard id != 0 else { return }
        g_dbus_connection_remove_filter(connection, id)
        id = 0
    }

    private final class Deliver: Sendable {
        let deliver: @Sendable (IncomingMessage) -> Void
        init(_ deliver: @escaping @Sendable (IncomingMessage) -> Void) { self.deliver = deliver }
    }
}
