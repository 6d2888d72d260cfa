import CLibSecret
import Foundation

/// The floor the Secret Service backend is measured against: libsecret's own one-call password
/// functions (`secret_password_storev_sync`, `secret_password_lookupv_sync`), with no
/// availability, lock or expiry checks and no metadata.
enum RawLibsecret {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func store(_ password: String, service: String, account: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let stored = withAttributes(service: service, account: account) { attributes in
            secret_password_storev_sync(nil, attributes, SECRET_COLLECTION_DEFAULT, "floor", password, nil, &error)
        }
        guard stored != 0 else { throw failure(error) }
    }

    static func lookup(service: String, account: String) throws -> Bool {
        var error: UnsafeMutablePointer<GError>?
        let password = withAttributes(service: service, account: account) { attributes in
            secret_password_lookupv_sync(nil, attributes, nil, &error)
        }
        if let error { throw failure(error) }
        defer { secret_password_free(password) }
        return password != nil
    }

    static func clear(service: String) {
        withAttributes(service: service, account: nil) { attributes in
            while secret_password_clearv_sync(nil, attributes, nil, nil) != 0 {}
        }
    }

    private static func withAttributes<R>(service: String, account: String?, _ body: (OpaquePointer) -> R) -> R {
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)!
        defer { g_hash_table_unref(table) }
        g_hash_table_insert(table, g_strdup("service"), g_strdup(service))
        if let account { g_hash_table_insert(table, g_strdup("username"), g_strdup(account)) }
        return body(table)
    }

    private static func failure(_ error: UnsafeMutablePointer<GError>?) -> Failure {
        defer { if let error { g_error_free(error) } }
        return Failure(description: error.map { String(cString: $0.pointee.message) } ?? "libsecret failed")
    }
}
