import CLibSecret
import FoundationEssentials

/// One item of the Secret Service, as a search found it: its attributes, label and dates,
/// and, once ``SecretCollectionSession/loadSecrets(_:)`` ran, its secret.
final class SecretServiceItem {
    let reference: GObjectReference<SecretItem>
    let attributes: [String: String]
    let label: String
    /// The daemon's creation and modification times, in whole seconds.
    let created: Date
    let modified: Date
    let isLocked: Bool

    /// Takes over a reference to `item` and reads its cached properties.
    init(taking item: UnsafeMutablePointer<SecretItem>) {
        reference = GObjectReference(taking: item)
        attributes = GLibStrings.takeDictionary(secret_item_get_attributes(item))
        label = GLibStrings.takeString(secret_item_get_label(item)) ?? ""
        created = Date(timeIntervalSince1970: TimeInterval(secret_item_get_created(item)))
        modified = Date(timeIntervalSince1970: TimeInterval(secret_item_get_modified(item)))
        isLocked = secret_item_get_locked(item) != 0
    }

    /// The loaded secret copied into `Data`, or `nil` when it was not loaded.
    func secretData() -> Data? {
        withSecret { Data($0) }
    }

    /// The loaded secret copied into guarded memory, or `nil` when it was not loaded.
    func secretBytes() -> SecureBytes? {
        withSecret { SecureBytes(copying: $0) }
    }

    private func withSecret<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard let value = secret_item_get_secret(reference.pointer) else { return nil }
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        var length: gsize = 0
        guard let bytes = secret_value_get(value, &length) else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return body(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
    }

    /// The newest first; ties broken by D-Bus path, so the choice is the same every time.
    static func newestFirst(_ lhs: SecretServiceItem, _ rhs: SecretServiceItem) -> Bool {
        if lhs.modified != rhs.modified { return lhs.modified > rhs.modified }
        return lhs.path < rhs.path
    }

    var path: String {
        String(cString: g_dbus_proxy_get_object_path(UnsafeMutableRawPointer(reference.pointer).assumingMemoryBound(to: GDBusProxy.self)))
    }
}
