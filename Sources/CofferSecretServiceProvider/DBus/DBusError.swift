import Coffer

/// A D-Bus error reply: a name from the Secret Service specification or D-Bus itself, and a
/// message that never holds a secret, a label or an attribute.
struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    let name: String
    let message: String

    init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    var description: String { "\(name): \(message)" }

    // The Secret Service's own errors (specification, "Errors").
    static func isLocked(_ message: String = "the collection is locked; unlock it first") -> DBusError {
        DBusError("org.freedesktop.Secret.Error.IsLocked", message)
    }

    static func noSession(_ message: String = "no such session, or it belongs to another connection") -> DBusError {
        DBusError("org.freedesktop.Secret.Error.NoSession", message)
    }

    static func noSuchObject(_ message: String = "no such item or collection") -> DBusError {
        DBusError("org.freedesktop.Secret.Error.NoSuchObject", message)
    }

    // D-Bus's standard errors.
    static func notSupported(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.NotSupported", message) }
    static func invalidArguments(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.InvalidArgs", message) }
    static func limitsExceeded(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.LimitsExceeded", message) }
    static func accessDenied(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.AccessDenied", message) }
    static func failed(_ message: String) -> DBusError { DBusError("org.freedesktop.DBus.Error.Failed", message) }

    /// The reply for a vault error. Only the error's fixed texts and sizes travel: a
    /// ``CofferError`` never holds a secret or a name.
    init(_ error: CofferError) {
        switch error {
        case .locked: self = .isLocked()
        case .accessDenied: self = SecretServiceObjects.lockedForCaller
        case .itemNotFound: self = .noSuchObject()
        case .invalidArgument(let reason): self = .invalidArguments(reason)
        case .secretTooLarge(let size, let limit): self = .limitsExceeded("the secret is \(size) bytes; the limit is \(limit)")
        case .notUTF8: self = .invalidArguments("not UTF-8")
        default: self = .failed("\(error)")
        }
    }
}
