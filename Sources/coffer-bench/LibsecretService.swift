import CLibSecret
import Foundation

/// The Secret Service of this process's session bus as libsecret's own service-level calls see
/// it (`secret_service_get_sync`, with a Diffie-Hellman session): what `secret_password_lookup_sync`
/// and `_store_sync` make for a client. libsecret talks to `org.freedesktop.secrets` on one bus
/// per process, so each daemon the benchmark compares has a client process of its own.
final class LibsecretService {
    private let service: UnsafeMutablePointer<SecretService>

    init() throws {
        var error: UnsafeMutablePointer<GError>?
        guard let opened = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, nil, &error) else { throw Self.failure(error) }
        service = opened
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(service)) }

    /// `secret_service_lookup_sync`: SearchItems, then the secret of the first item found.
    func lookup(_ attributes: [String: String]) throws -> Bool {
        var error: UnsafeMutablePointer<GError>?
        let value = Self.withTable(attributes) { secret_service_lookup_sync(service, nil, $0, nil, &error) }
        if let error { throw Self.failure(error) }
        defer { if let value { secret_value_unref(UnsafeMutableRawPointer(value)) } }
        return value != nil
    }

    /// `secret_service_store_sync` into the `default` collection: CreateItem with replace.
    func store(_ attributes: [String: String], label: String, secret: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let value = secret_value_new(secret, -1, "text/plain")
        defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
        let stored = Self.withTable(attributes) { secret_service_store_sync(service, nil, $0, SECRET_COLLECTION_DEFAULT, label, value, nil, &error) }
        guard stored != 0 else { throw Self.failure(error) }
    }

    /// `secret_service_search_sync` with no flags: SearchItems, and an item proxy per result.
    func search(_ attributes: [String: String]) throws -> Int {
        var error: UnsafeMutablePointer<GError>?
        let items = Self.withTable(attributes) { secret_service_search_sync(service, nil, $0, SECRET_SEARCH_NONE, nil, &error) }
        if let error { throw Self.failure(error) }
        defer { g_list_free_full(items, g_object_unref) }
        return Int(g_list_length(items))
    }

    private static func withTable<R>(_ attributes: [String: String], _ body: (OpaquePointer) -> R) -> R {
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)!
        defer { g_hash_table_unref(table) }
        for (name, value) in attributes { g_hash_table_insert(table, g_strdup(name), g_strdup(value)) }
        return body(table)
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> RawLibsecret.Failure {
        defer { if let error { g_error_free(error) } }
        return RawLibsecret.Failure(description: error.map { String(cString: $0.pointee.message) } ?? "libsecret failed")
    }
}
