import CGio
import CofferAgent
import Coffer

/// One method call to an object the provider exports, answered exactly once: by
/// ``reply(_:)`` or ``fail(_:)``.
final class MethodCall {
    /// The caller's unique bus name (`:1.42`): what owns the sessions it opens.
    let sender: String
    let path: String
    let interface: Interface
    let method: String
    /// The arguments, a tuple of the signature GDBus has already checked.
    let arguments: Variant
    /// The program behind ``sender`` (``BusCallers``); `nil` when it cannot be told. Every
    /// caller is served alike for now.
    var caller: Caller?
    private let answering: Answering

    /// What the answer goes to.
    enum Answering {
        /// GDBus's invocation of the call, on the main loop.
        case invocation(OpaquePointer)
        /// The call's message itself, answered on GDBus's worker thread (``WorkerThreadCalls``):
        /// the reply is sent on the connection.
        case message(IncomingMessage, connection: OpaquePointer)
    }

    init(sender: String, path: String, interface: Interface, method: String, arguments: Variant, answering: Answering) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.method = method
        self.arguments = arguments
        self.answering = answering
    }

    /// Answers with `values`, the method's out arguments in order.
    func reply(_ values: [Variant]) {
        Variant.tuple(values).withPointer { body in
            switch answering {
            case .invocation(let invocation):
                g_dbus_method_invocation_return_value(invocation, body)
            case .message(let message, let connection):
                let reply = g_dbus_message_new_method_reply(message.pointer)
                g_dbus_message_set_body(reply, body)
                Self.send(reply, on: connection)
            }
        }
    }

    func fail(_ error: DBusError) {
        switch answering {
        case .invocation(let invocation):
            g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
        case .message(let message, let connection):
            Self.send(g_dbus_message_new_method_error_literal(message.pointer, error.name, error.message), on: connection)
        }
    }

    private static func send(_ reply: OpaquePointer?, on connection: OpaquePointer) {
        guard let reply else { return }
        g_dbus_connection_send_message(connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(reply))
    }
}
