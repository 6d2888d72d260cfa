import CLibSecret
import CofferBase
import FoundationEssentials

/// Reaches the Secret Service's default collection for one operation at a time.
///
/// Before libsecret is used at all, two plain D-Bus calls, both sent with `NO_AUTO_START`, find
/// the collection: `ReadAlias("default")` (which fails at once when no daemon owns
/// `org.freedesktop.secrets`, so nothing ever waits on D-Bus activation) and its `Locked`
/// property. A missing or locked default collection stops the operation there. No call that
/// could prompt (Unlock, CreateCollection, a search with `SECRET_SEARCH_UNLOCK`) is ever made.
///
/// Operations are serialised in the process: libsecret's service object and its session are
/// process-wide, and a daemon handles one request at a time anyway. Waiting for the lock counts
/// against the operation's deadline.
enum SecretServiceConnection {
    static let busName = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"
    /// How many operations have run: a count, so that the lock guards a value of some size.
    /// ThreadSanitizer took the exclusive access to an empty one (`Guarded(())`) for an access to
    /// the memory at the same address, and reported a race with a thread taking the lock.
    private static let lock = Guarded(0)

    /// What the checks before libsecret found.
    private enum Reach {
        case noSessionBus(String)
        case noDaemon
        /// The `default` alias names no collection, or a locked one.
        case locked
        /// The D-Bus path of the unlocked default collection.
        case unlocked(String)
    }

    /// Runs `body` with the unlocked default collection, all within `timeout`.
    static func withDefaultCollection<R>(
        timeout: Duration, _ body: (SecretCollectionSession) throws(CofferError) -> R
    ) throws(CofferError) -> R {
        let deadline = OperationDeadline(timeout: timeout)
        return try serialized(deadline) { () throws(CofferError) -> R in
            switch try reach(deadline) {
            case .noSessionBus(let detail): throw .secretServiceUnavailable(reason: "no D-Bus session bus (\(detail))")
            case .noDaemon: throw .secretServiceUnavailable(reason: "no Secret Service daemon owns \(busName) on the session bus")
            case .locked: throw .locked
            case .unlocked(let path):
                do throws(CofferError) {
                    var error: UnsafeMutablePointer<GError>?
                    guard let service = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, deadline.pointer, &error) else {
                        throw GLibErrors.take(error, deadline: deadline, doing: "opening a Secret Service session")
                    }
                    let session = SecretCollectionSession(
                        service: GObjectReference(taking: service), collectionPath: path, deadline: deadline)
                    return try body(session)
                } catch {
                    // libsecret keeps one service object and session per process; start afresh next time.
                    if case .secretServiceUnavailable = error { secret_service_disconnect() }
                    if error == .timeout { secret_service_disconnect() }
                    throw error
                }
            }
        }
    }

    static func status(timeout: Duration) throws(CofferError) -> SecretService.Status {
        let deadline = OperationDeadline(timeout: timeout)
        return try serialized(deadline) { () throws(CofferError) -> SecretService.Status in
            switch try reach(deadline) {
            case .noSessionBus: .noSessionBus
            case .noDaemon: .noDaemon
            case .locked: .locked
            case .unlocked: .available
            }
        }
    }

    private static func serialized<R>(_ deadline: OperationDeadline, _ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        guard let result = try lock.withLock(waitingAtMost: deadline.remaining, { (operations: inout Int) throws(CofferError) -> R in
            operations &+= 1
            return try body()
        })
        else { throw .timeout }
        return result
    }

    private static func reach(_ deadline: OperationDeadline) throws(CofferError) -> Reach {
        guard SessionBusAddress.find() != nil else { return .noSessionBus(SessionBusAddress.missing) }
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

        guard let alias = try callDaemon(
            connection, servicePath, "org.freedesktop.Secret.Service", "ReadAlias", [g_variant_new_string("default")],
            deadline, doing: "reading the default alias")
        else { return .noDaemon }
        defer { g_variant_unref(alias) }
        let aliasPath = childValue(alias) { value -> String? in
            g_variant_classify(value) == G_VARIANT_CLASS_OBJECT_PATH ? String(cString: g_variant_get_string(value, nil)) : nil
        }
        guard let path = aliasPath else { throw .secretServiceUnavailable(reason: "the daemon sent a malformed ReadAlias reply") }
        guard path != "/" else { return .locked }

        guard let property = try callDaemon(
            connection, path, "org.freedesktop.DBus.Properties", "Get",
            [g_variant_new_string("org.freedesktop.Secret.Collection"), g_variant_new_string("Locked")],
            deadline, doing: "reading whether the default collection is locked")
        else { return .noDaemon }
        defer { g_variant_unref(property) }
        let locked = childValue(property) { boxed -> Bool? in
            guard let value = g_variant_get_variant(boxed) else { return nil }
            defer { g_variant_unref(value) }
            return g_variant_classify(value) == G_VARIANT_CLASS_BOOLEAN ? g_variant_get_boolean(value) != 0 : nil
        }
        guard let locked else { throw .secretServiceUnavailable(reason: "the daemon sent a malformed Locked property") }
        return locked ? .locked : .unlocked(path)
    }

    /// A method call to the daemon that never starts one: `nil` when no daemon owns the name.
    private static func callDaemon(
        _ connection: OpaquePointer, _ path: String, _ interface: String, _ method: String, _ arguments: [OpaquePointer?],
        _ deadline: OperationDeadline, doing what: String
    ) throws(CofferError) -> OpaquePointer? {
        var arguments = arguments
        let parameters = g_variant_new_tuple(&arguments, gsize(arguments.count))
        var error: UnsafeMutablePointer<GError>?
        if let reply = g_dbus_connection_call_sync(
            connection, busName, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NO_AUTO_START,
            deadline.remainingMilliseconds, deadline.pointer, &error) {
            return reply
        }
        let noOwner = ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"]
        if let error, !deadline.hasExpired, let name = GLibStrings.takeString(g_dbus_error_get_remote_error(error)), noOwner.contains(name) {
            g_error_free(error)
            return nil
        }
        throw GLibErrors.take(error, deadline: deadline, doing: what)
    }

    /// Reads the first child of a reply tuple.
    private static func childValue<T>(_ reply: OpaquePointer, _ read: (OpaquePointer) -> T?) -> T? {
        guard g_variant_n_children(reply) > 0, let child = g_variant_get_child_value(reply, 0) else { return nil }
        defer { g_variant_unref(child) }
        return read(child)
    }
}
