import CLibSecret
import Foundation

/// `coffer-bench dispatch-server MODE ADDRESS`: a D-Bus server with one method, `Echo(s) → s` on
/// `/coffer/bench/Echo`, answered in one of three ways (``DispatchBenchmark``), so that the cost of
/// where a call is answered can be told from the cost of answering it:
///
/// - `loop`: GDBus, the object registered from a thread running a main context of its own, as
///   Coffer's provider registers its objects: GDBus's worker thread reads the call and hands it to
///   that thread, whose reply goes back to the worker thread to be written.
/// - `filter`: GDBus, answered by a message filter on GDBus's worker thread: no hand-off.
/// - `sdbus`: sd-bus from libsystemd (loaded at run time), one thread that reads, answers and writes.
///
/// Prints its unique name once connected, then serves until stdin closes.
enum DispatchServer {
    static let path = "/coffer/bench/Echo"
    static let interface = "org.coffer.bench.Echo"

    static func run(mode: String, address: String) {
        switch mode {
        case "loop", "filter": serveGDBus(filter: mode == "filter", address: address)
        case "sdbus": SDBusEcho.serve(address: address)
        default: FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
        }
        exit(0)
    }

    private static func serveGDBus(filter: Bool, address: String) {
        let flags = GDBusConnectionFlags(
            rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else { return }
        if filter {
            _ = g_dbus_connection_add_filter(connection, { connection, message, incoming, _ in
                guard let message, incoming != 0, g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL,
                      g_strcmp0(g_dbus_message_get_member(message), "Echo") == 0
                else { return message }
                let reply = g_dbus_message_new_method_reply(message)
                g_dbus_message_set_body(reply, g_dbus_message_get_body(message))
                g_dbus_connection_send_message(connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(reply))
                g_object_unref(UnsafeMutableRawPointer(message))
                return nil
            }, nil, nil)
        } else {
            let ready = DispatchSemaphore(value: 0)
            let shared = SharedConnection(pointer: connection)
            let thread = Thread {
                let connection = shared.pointer
                let context = g_main_context_new()
                g_main_context_push_thread_default(context)
                let xml = "<node><interface name='\(interface)'><method name='Echo'><arg type='s' direction='in'/><arg type='s' direction='out'/></method></interface></node>"
                let node = g_dbus_node_info_new_for_xml(xml, nil)!
                let vtable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
                vtable.initialize(to: GDBusInterfaceVTable())
                vtable.pointee.method_call = { _, _, _, _, _, parameters, invocation, _ in
                    g_dbus_method_invocation_return_value(invocation, parameters)
                }
                _ = g_dbus_connection_register_object(connection, path, node.pointee.interfaces[0], vtable, nil, nil, nil)
                ready.signal()
                let loop = g_main_loop_new(context, 0)
                g_main_loop_run(loop)
            }
            thread.start()
            ready.wait()
        }
        announce(String(cString: g_dbus_connection_get_unique_name(connection)))
        while readLine() != nil {}
    }

    /// Prints the server's unique name, at once.
    static func announce(_ name: String) {
        FileHandle.standardOutput.write(Data((name + "\n").utf8))
    }

    /// A connection handed to the thread that serves it (a GDBus connection may be used from any
    /// thread; an sd-bus one is used by that thread alone from then on).
    struct SharedConnection: @unchecked Sendable {
        let pointer: OpaquePointer
    }
}
