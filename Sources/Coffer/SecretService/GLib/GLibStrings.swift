import CLibSecret

/// Conversions between Swift values and GLib's string tables, lists and strings.
enum GLibStrings {
    /// A new `GHashTable` of UTF-8 strings owning copies of `attributes`. Free with `g_hash_table_unref`.
    static func table(_ attributes: [String: String]) -> OpaquePointer {
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)!
        for (name, value) in attributes {
            g_hash_table_insert(table, g_strdup(name), g_strdup(value))
        }
        return table
    }

    /// Runs `body` with a temporary table of `attributes`.
    static func withTable<R, E: Error>(_ attributes: [String: String], _ body: (OpaquePointer) throws(E) -> R) throws(E) -> R {
        let table = table(attributes)
        defer { g_hash_table_unref(table) }
        return try body(table)
    }

    /// Reads a table of strings, then releases it (for tables returned with transfer full).
    static func takeDictionary(_ table: OpaquePointer?) -> [String: String] {
        guard let table else { return [:] }
        defer { g_hash_table_unref(table) }
        var result: [String: String] = [:]
        var iterator = GHashTableIter()
        g_hash_table_iter_init(&iterator, table)
        var key: gpointer?
        var value: gpointer?
        while g_hash_table_iter_next(&iterator, &key, &value) != 0 {
            guard let key, let value else { continue }
            result[String(cString: key.assumingMemoryBound(to: CChar.self))] =
                String(cString: value.assumingMemoryBound(to: CChar.self))
        }
        return result
    }

    /// Reads a string returned with transfer full, then frees it.
    static func takeString(_ pointer: UnsafeMutablePointer<gchar>?) -> String? {
        guard let pointer else { return nil }
        defer { g_free(pointer) }
        return String(cString: pointer)
    }

    /// The elements of a `GList` of GObjects returned with transfer full. The list itself is
    /// freed; each element's reference moves into the result.
    static func takeObjects<T>(_ list: UnsafeMutablePointer<GList>?, as type: T.Type) -> [UnsafeMutablePointer<T>] {
        var objects: [UnsafeMutablePointer<T>] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data { objects.append(data.assumingMemoryBound(to: T.self)) }
            node = current.pointee.next
        }
        g_list_free(list)
        return objects
    }
}
