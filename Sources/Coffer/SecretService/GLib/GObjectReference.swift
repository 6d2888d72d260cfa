import CLibSecret

/// One strong reference to a GObject, released when this value goes away.
///
/// `@unchecked Sendable`: GObject reference counting is atomic, and the objects held here
/// (GCancellable, libsecret proxies) are only used under ``SecretServiceConnection``'s lock
/// or through thread-safe calls (`g_cancellable_cancel`).
final class GObjectReference<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>

    /// Takes over a reference the caller owns (transfer full).
    init(taking pointer: UnsafeMutablePointer<T>) {
        self.pointer = pointer
    }

    deinit {
        g_object_unref(pointer)
    }
}
