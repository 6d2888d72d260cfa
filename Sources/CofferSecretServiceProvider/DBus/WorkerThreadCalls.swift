import CGio

/// Answers `SearchItems` and `GetSecrets`, the two calls of every libsecret lookup, on GDBus's
/// worker thread, in a message filter, when the main loop is waiting for work: GDBus would hand
/// each call to the main loop's thread and its reply back to the worker thread, two thread
/// switches a call (`coffer-bench dispatch` measures them; docs/performance.md). Every other
/// call, and these whenever the filter cannot answer them, go the usual way.
///
/// A call is answered here only when every earlier call of the same connection has been
/// answered: the filter counts the calls it lets through per connection, and the replies and
/// errors it sees leave (outgoing messages pass the filters too, on the same thread), so no call
/// overtakes one its client sent before. A connection that ever sends a call without wanting a
/// reply is never answered here (nothing would show that call done).
///
/// `answer` runs on the worker thread; it returns whether it answered (``MethodCall`` replies
/// on the message itself). The state here is the worker thread's alone.
final class WorkerThreadCalls: @unchecked Sendable {
    private let connection: OpaquePointer
    private let answer: (IncomingMessage) -> Bool
    private var id: guint = 0
    /// The serials of the calls let through and not answered yet, by sender.
    private var outstanding: [String: Set<guint32>] = [:]
    /// Senders that sent a call without wanting a reply.
    private var unordered: Set<String> = []

    static let serviceInterface = "org.freedesktop.Secret.Service"
    /// The calls answered here, with the signature GDBus would check.
    static let signatures = ["SearchItems": "a{ss}", "GetSecrets": "aoo"]

    init(connection: OpaquePointer, answer: @escaping (IncomingMessage) -> Bool) {
        self.connection = connection
        self.answer = answer
        id = g_dbus_connection_add_filter(connection, { _, message, incoming, userData in
            guard let message else { return nil }
            let calls = Unmanaged<WorkerThreadCalls>.fromOpaque(userData!).takeUnretainedValue()
            return incoming != 0 ? calls.received(message) : calls.sending(message)
        }, Unmanaged.passRetained(self).toOpaque(), { userData in Unmanaged<WorkerThreadCalls>.fromOpaque(userData!).release() })
    }

    /// Stops filtering (before the connection closes).
    func remove() {
        guard id != 0 else { return }
        g_dbus_connection_remove_filter(connection, id)
        id = 0
    }

    private func received(_ message: OpaquePointer) -> OpaquePointer? {
        guard g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL,
              let sender = g_dbus_message_get_sender(message).map({ String(cString: $0) })
        else { return message }
        let flags = g_dbus_message_get_flags(message).rawValue
        if flags & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED.rawValue != 0 {
            unordered.insert(sender)
            return message
        }
        if outstanding[sender] == nil, !unordered.contains(sender), Self.isAnswerable(message), answer(IncomingMessage(pointer: message)) {
            g_object_unref(UnsafeMutableRawPointer(message))
            return nil
        }
        outstanding[sender, default: []].insert(g_dbus_message_get_serial(message))
        return message
    }

    private func sending(_ message: OpaquePointer) -> OpaquePointer? {
        let type = g_dbus_message_get_message_type(message)
        guard type == G_DBUS_MESSAGE_TYPE_METHOD_RETURN || type == G_DBUS_MESSAGE_TYPE_ERROR,
              let destination = g_dbus_message_get_destination(message).map({ String(cString: $0) }),
              var serials = outstanding[destination]
        else { return message }
        serials.remove(g_dbus_message_get_reply_serial(message))
        outstanding[destination] = serials.isEmpty ? nil : serials
        return message
    }

    /// A call to the service object of one of the calls answered here, with its signature, small
    /// enough to need no trimming after (``LargeCallMemory``).
    private static func isAnswerable(_ message: OpaquePointer) -> Bool {
        guard g_strcmp0(g_dbus_message_get_path(message), ObjectPaths.service) == 0,
              g_strcmp0(g_dbus_message_get_interface(message), serviceInterface) == 0,
              let member = g_dbus_message_get_member(message).map({ String(cString: $0) }),
              let signature = signatures[member],
              g_strcmp0(g_dbus_message_get_signature(message), signature) == 0
        else { return false }
        let size = g_dbus_message_get_body(message).map { Int(g_variant_get_size($0)) } ?? 0
        return size <= LargeCallMemory.threshold
    }
}
