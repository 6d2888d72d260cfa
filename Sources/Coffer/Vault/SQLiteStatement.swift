import CSQLite

/// A prepared statement owned by a ``SQLiteConnection``.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds parameters from 1 up, in order.
    func bind(_ values: SQLiteValue...) throws(CofferError) {
        try bind(values)
    }

    /// Binds parameters from 1 up, in order.
    func bind(_ values: [SQLiteValue]) throws(CofferError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32 = switch value {
            case .blob(let bytes):
                bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob64(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                                        UInt64(buffer.count), coffer_sqlite3_transient())
                }
            case .integer(let number): sqlite3_bind_int64(handle, index, number)
            case .text(let text): sqlite3_bind_text64(handle, index, text, UInt64(text.utf8.count), coffer_sqlite3_transient(), UInt8(SQLITE_UTF8))
            case .null: sqlite3_bind_null(handle, index)
            }
            try connection.check(status)
        }
    }

    /// Steps once. Returns `true` when a row is available.
    func step() throws(CofferError) -> Bool {
        let status = sqlite3_step(handle)
        try connection.check(status)
        return status == SQLITE_ROW
    }

    /// Steps to completion, for statements that return no rows.
    func run() throws(CofferError) {
        while try step() {}
    }

    func blob(at column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }

    func int64(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func text(at column: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: text)
    }

    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}

/// A value to bind to a statement parameter.
enum SQLiteValue {
    case blob([UInt8])
    case integer(Int64)
    case text(String)
    case null
}
