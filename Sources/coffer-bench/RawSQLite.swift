import CSQLite
import Foundation

/// The floor the vault is measured against: a bare SQLite table with the vault's layout
/// and the vault's settings (WAL, synchronous=FULL, secure_delete, mmap), used directly.
/// `synchronous: "NORMAL"` gives the audit log's floor (commits not fsynced).
final class RawSQLite {
    private var db: OpaquePointer?
    private var select: OpaquePointer?
    private var upsert: OpaquePointer?

    init(path: String, synchronous: String = "FULL") throws {
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            throw POSIXError(.EIO)
        }
        for pragma in [
            "PRAGMA journal_mode = WAL", "PRAGMA synchronous = \(synchronous)", "PRAGMA secure_delete = ON",
            "PRAGMA journal_size_limit = 4194304", "PRAGMA mmap_size = 268435456",
            "CREATE TABLE IF NOT EXISTS items (row_key BLOB PRIMARY KEY, record BLOB NOT NULL) WITHOUT ROWID",
        ] {
            try exec(pragma)
        }
        sqlite3_prepare_v3(db, "SELECT record FROM items WHERE row_key = ?1", -1, 0, &select, nil)
        sqlite3_prepare_v3(
            db, "INSERT INTO items (row_key, record) VALUES (?1, ?2) ON CONFLICT (row_key) DO UPDATE SET record = excluded.record",
            -1, 0, &upsert, nil)
    }

    deinit {
        sqlite3_finalize(select)
        sqlite3_finalize(upsert)
        sqlite3_close_v2(db)
    }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw POSIXError(.EIO) }
    }

    /// Inserts rows in one transaction.
    func fill(_ rows: [([UInt8], [UInt8])]) throws {
        try exec("BEGIN")
        for (key, record) in rows { try put(key, record) }
        try exec("COMMIT")
    }

    /// One autocommit upsert: a durable commit.
    func put(_ key: [UInt8], _ record: [UInt8]) throws {
        defer { sqlite3_reset(upsert) }
        let status = key.withUnsafeBytes { keyBytes in
            record.withUnsafeBytes { recordBytes in
                sqlite3_bind_blob(upsert, 1, keyBytes.baseAddress, Int32(key.count), nil)
                sqlite3_bind_blob(upsert, 2, recordBytes.baseAddress, Int32(record.count), nil)
                return sqlite3_step(upsert)
            }
        }
        guard status == SQLITE_DONE else { throw POSIXError(.EIO) }
    }

    /// The length of the longest record in the `items` table of the SQLite file at `path` (a
    /// vault), read through a connection of its own: the floor's rows are made that size.
    static func longestRecord(inFileAt path: String) throws -> Int {
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
              sqlite3_prepare_v2(db, "SELECT max(length(record)) FROM items", -1, &statement, nil) == SQLITE_OK,
              sqlite3_step(statement) == SQLITE_ROW else { throw POSIXError(.EIO) }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// One point select, copying the record out.
    func get(_ key: [UInt8]) -> [UInt8]? {
        defer { sqlite3_reset(select) }
        return key.withUnsafeBytes { keyBytes in
            sqlite3_bind_blob(select, 1, keyBytes.baseAddress, Int32(key.count), nil)
            guard sqlite3_step(select) == SQLITE_ROW, let base = sqlite3_column_blob(select, 0) else { return nil }
            return [UInt8](UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(select, 0))))
        }
    }
}
