import CLibSecret
import Foundation

/// Gives gnome-keyring's login keyring a password through its own D-Bus method
/// (`org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface.ChangeWithMasterPassword`, with
/// secrets in a `plain` session), so that it writes the keyring in its encrypted binary format.
enum KeyringPassword {
    static let name = "org.freedesktop.secrets"

    static func set(_ password: String) throws {
        var error: UnsafeMutablePointer<GError>?
        guard let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else { throw failure(error) }
        defer { g_object_unref(UnsafeMutableRawPointer(bus)) }
        g_dbus_connection_set_exit_on_close(bus, 0)
        let opened = try call(bus, "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "OpenSession",
                              [g_variant_new_string("plain"), g_variant_new_variant(g_variant_new_string(""))])
        defer { g_variant_unref(opened) }
        let sessionValue = g_variant_get_child_value(opened, 1)!
        defer { g_variant_unref(sessionValue) }
        let session = String(cString: g_variant_get_string(sessionValue, nil))
        func secret(_ text: String) -> OpaquePointer {
            let bytes = Array(text.utf8)
            var fields: [OpaquePointer?] = [
                g_variant_new_object_path(session),
                g_variant_new_fixed_array(g_variant_type_checked_("y"), nil, 0, 1),
                bytes.withUnsafeBytes { g_variant_new_fixed_array(g_variant_type_checked_("y"), $0.baseAddress, gsize($0.count), 1) },
                g_variant_new_string("text/plain"),
            ]
            return g_variant_new_tuple(&fields, gsize(fields.count))
        }
        let changed = try call(bus, "/org/freedesktop/secrets", "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface",
                               "ChangeWithMasterPassword",
                               [g_variant_new_object_path("/org/freedesktop/secrets/collection/login"), secret(""), secret(password)])
        g_variant_unref(changed)
    }

    private static func call(
        _ bus: OpaquePointer, _ path: String, _ interface: String, _ method: String, _ arguments: [OpaquePointer?]
    ) throws -> OpaquePointer {
        var arguments = arguments
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(
            bus, name, path, interface, method, g_variant_new_tuple(&arguments, gsize(arguments.count)), nil,
            G_DBUS_CALL_FLAGS_NO_AUTO_START, 600_000, nil, &error)
        else { throw failure(error) }
        return reply
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> RawLibsecret.Failure {
        defer { if let error { g_error_free(error) } }
        return RawLibsecret.Failure(description: error.map { String(cString: $0.pointee.message) } ?? "gnome-keyring refused")
    }
}
