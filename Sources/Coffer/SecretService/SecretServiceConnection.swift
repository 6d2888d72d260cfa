import CLibSecret
import Foundation

/// Reaches the Secret Service's default collection for one operation at a time.
///
/// Before libsecret is used at all, the session bus is checked to exist and
/// `org.freedesktop.secrets` to have an owner (`NameHasOwner`, sent with `NO_AUTO_START`), so
/// nothing ever waits on D-Bus activation. Then the default collection is read through the
/// `default` alias and must be unlocked; no call that could prompt (Unlock, CreateCollection,
/// a search with `SECRET_SEARCH_UNLOCK`) is ever made.
///
/// Operations are serialised in the process: libsecret's service object and its session are
/// process-wide, and a daemon handles one request at a time anyway. Waiting for the lock counts
/// against the operation's deadline.
enum SecretServiceConnection {
    static let busName = "org.freedesktop.secrets"
    private static let lock = NSLock()

    /// What the bus check found.
    private enum Presence {
        case noSessionBus(String)
        case noDaemon
        case running
    }

    /// Runs `body` with the unlocked default collection, all within `timeout`.
    static func withDefaultCollection<R>(
        timeout: Duration, _ body: (SecretCollectionSession) throws(CofferError) -> R
    ) throws(CofferError) -> R {
        let deadline = OperationDeadline(timeout: timeout)
        return try serialized(deadline) { () throws(CofferError) -> R in
            switch try presence(deadline) {
            case .noSessionBus(let detail): throw .secretServiceUnavailable(reason: "no D-Bus session bus (\(detail))")
            case .noDaemon: throw .secretServiceUnavailable(reason: "no Secret Service daemon owns \(busName) on the session bus")
            case .running: break
            }
            do throws(CofferError) {
                guard let collection = try defaultCollection(deadline) else { throw CofferError.locked }
                guard secret_collection_get_locked(collection.pointer) == 0 else { throw .locked }
                return try body(SecretCollectionSession(collection: collection, deadline: deadline))
            } catch {
                if case .secretServiceUnavailable = error { secret_service_disconnect() }
                if error == .timeout { secret_service_disconnect() }
                throw error
            }
        }
    }

    static func status(timeout: Duration) throws(CofferError) -> SecretService.Status {
        let deadline = OperationDeadline(timeout: timeout)
        return try serialized(deadline) { () throws(CofferError) -> SecretService.Status in
            switch try presence(deadline) {
            case .noSessionBus: return .noSessionBus
            case .noDaemon: return .noDaemon
            case .running:
                do throws(CofferError) {
                    guard let collection = try defaultCollection(deadline) else { return .locked }
                    return secret_collection_get_locked(collection.pointer) == 0 ? .available : .locked
                } catch {
                    secret_service_disconnect()
                    throw error
                }
            }
        }
    }

    private static func serialized<R>(_ deadline: OperationDeadline, _ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        guard lock.lock(before: deadline.date) else { throw .timeout }
        defer { lock.unlock() }
        return try body()
    }

    // MARK: The bus

    /// Whether a session bus address can be found without side effects. With no
    /// `DBUS_SESSION_BUS_ADDRESS`, GDBus would try `$XDG_RUNTIME_DIR/bus` and then spawn
    /// `dbus-launch --autolaunch`; Coffer accepts only the first.
    private static func sessionBusAddressProblem() -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return nil }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            var info = stat()
            if stat(runtime + "/bus", &info) == 0, info.st_mode & S_IFMT == S_IFSOCK { return nil }
        }
        return "DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus"
    }

    private static func presence(_ deadline: OperationDeadline) throws(CofferError) -> Presence {
        if let problem = sessionBusAddressProblem() { return .noSessionBus(problem) }
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, deadline.pointer, &error) else {
            switch GLibErrors.take(error, deadline: deadline, doing: "cannot connect") {
            case .secretServiceUnavailable(let reason): return .noSessionBus(reason)
            case let failure: throw failure
            }
        }
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }
        // GDBus's shared connection exits the process when the bus goes away, unless told not to.
        g_dbus_connection_set_exit_on_close(connection, 0)
        guard g_dbus_connection_is_closed(connection) == 0 else { return .noSessionBus("the session bus connection closed") }
        return try nameHasOwner(connection, deadline) ? .running : .noDaemon
    }

    /// `org.freedesktop.DBus.NameHasOwner("org.freedesktop.secrets")`, which never activates anything.
    private static func nameHasOwner(_ connection: OpaquePointer, _ deadline: OperationDeadline) throws(CofferError) -> Bool {
        var argument = g_variant_new_string(busName)
        let parameters = g_variant_new_tuple(&argument, 1)
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(
            connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
            parameters, nil, G_DBUS_CALL_FLAGS_NO_AUTO_START, deadline.remainingMilliseconds, deadline.pointer, &error)
        else {
            throw GLibErrors.take(error, deadline: deadline, doing: "asking the session bus for \(busName)")
        }
        defer { g_variant_unref(reply) }
        guard let child = g_variant_get_child_value(reply, 0) else {
            throw .secretServiceUnavailable(reason: "the session bus sent a malformed NameHasOwner reply")
        }
        defer { g_variant_unref(child) }
        return g_variant_get_boolean(child) != 0
    }

    // MARK: The default collection

    /// The collection behind the `default` alias, or `nil` when the alias names none.
    private static func defaultCollection(_ deadline: OperationDeadline) throws(CofferError) -> GObjectReference<SecretCollection>? {
        var error: UnsafeMutablePointer<GError>?
        guard let service = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, deadline.pointer, &error) else {
            throw GLibErrors.take(error, deadline: deadline, doing: "opening a Secret Service session")
        }
        defer { g_object_unref(service) }
        let collection = secret_collection_for_alias_sync(
            service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, deadline.pointer, &error)
        if let error { throw GLibErrors.take(error, deadline: deadline, doing: "reading the default collection") }
        return collection.map { GObjectReference(taking: $0) }
    }
}
