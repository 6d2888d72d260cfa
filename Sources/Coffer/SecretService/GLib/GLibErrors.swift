import CLibSecret

/// Turns a `GError` from libsecret or GDBus into a ``CofferError``.
///
/// The mapping keeps the three ways the Secret Service can fail apart: ``CofferError/timeout``
/// (the deadline fired, or D-Bus gave up waiting), ``CofferError/locked`` (the collection or
/// item is locked) and ``CofferError/secretServiceUnavailable(reason:)`` (everything else).
/// The reason carries the D-Bus error name and GLib's message, which name objects by D-Bus
/// path only, never by attribute or secret.
enum GLibErrors {
    /// Maps `error` and frees it.
    static func take(_ error: UnsafeMutablePointer<GError>?, deadline: OperationDeadline, doing what: String) -> CofferError {
        guard let error else {
            return deadline.hasExpired ? .timeout : .secretServiceUnavailable(reason: "\(what) failed")
        }
        defer { g_error_free(error) }
        if deadline.hasExpired { return .timeout }
        let domain = error.pointee.domain
        let code = error.pointee.code
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        let remoteName = GLibStrings.takeString(g_dbus_error_get_remote_error(error))

        if domain == secret_error_get_quark(), code == Int32(SECRET_ERROR_IS_LOCKED.rawValue) { return .locked }
        if remoteName == "org.freedesktop.Secret.Error.IsLocked" { return .locked }
        if domain == g_io_error_quark(),
           code == Int32(G_IO_ERROR_TIMED_OUT.rawValue) || code == Int32(G_IO_ERROR_CANCELLED.rawValue) {
            return .timeout
        }
        if domain == g_dbus_error_quark(),
           [G_DBUS_ERROR_NO_REPLY, G_DBUS_ERROR_TIMEOUT, G_DBUS_ERROR_TIMED_OUT].contains(where: { code == Int32($0.rawValue) }) {
            return .timeout
        }
        let name = remoteName.map { "\($0): " } ?? ""
        return .secretServiceUnavailable(reason: "\(what): \(name)\(message)")
    }
}
