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
    private let invocation: OpaquePointer

    init(sender: String, path: String, interface: Interface, method: String, arguments: Variant, invocation: OpaquePointer) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.method = method
        self.arguments = arguments
        self.invocation = invocation
    }

    /// Answers with `values`, the method's out arguments in order.
    func reply(_ values: [Variant]) {
        Variant.tuple(values).withPointer { g_dbus_method_invocation_return_value(invocation, $0) }
    }

    func fail(_ error: DBusError) {
        g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
    }
}
