import CSQLite
import CofferBase

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe by itself: its owner (``Vault``) serialises every use under a lock.
final class SQLiteConnection {
    private let handle: OpaquePointer
    /// The database file's path.
    private let path: String
    /// Prepared statements by their SQL's address: every statement is a literal
    /// (`StaticString`), so none is built from data, and finding it hashes no text.
    private var statements: [UnsafeRawPointer: SQLiteStatement] = [:]
    /// Set for a database in rollback-journal mode: it is switched to WAL before the first
    /// write, never by a read (docs/vault-format.md, 2).
    var switchesToWALBeforeWriting = false
    /// The files this connection has open, as ``OpenDatabaseFiles`` knows them until it closes.
    private var heldFiles = Set<OpenDatabaseFiles.Identity>()

    /// Opens the database at `path` (a symbolic link is refused); `create` allows creating a
    /// missing file.
    ///
    /// With `immutable`, for a file on read-only media, the file is opened read-only as a file
    /// nothing can change: SQLite then needs no -shm, which it could not create there.
    ///
    /// Closing the connection does not checkpoint the WAL into the file until
    /// ``allowCheckpointOnClose()``: a file that is checked and refused stays as it was.
    init(path: String, create: Bool, busyTimeout: Duration, immutable: Bool = false) throws(CofferError) {
        var db: OpaquePointer?
        let access = immutable ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        let flags = access | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_NOFOLLOW
        let status = sqlite3_open_v2(immutable ? Self.immutableURI(path) : path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw Self.error(for: status)
        }
        handle = db
        self.path = path
        sqlite3_busy_timeout(db, Int32(clamping: busyTimeout.clampedMilliseconds))
        // Refuse schema tricks from a hostile file: no writable schema, no functions from schema objects.
        _ = coffer_sqlite3_db_config_int(db, SQLITE_DBCONFIG_DEFENSIVE, 1)
        _ = coffer_sqlite3_db_config_int(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0)
        _ = coffer_sqlite3_db_config_int(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1)
    }

    /// `file:` URI of `path` with `immutable=1`; every byte that is not unreserved is percent-encoded.
    private static func immutableURI(_ path: String) -> String {
        let unreserved = Set("/ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in path.utf8 {
            if unreserved.contains(byte) { encoded.append(byte) } else { encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] }
        }
        return "file:" + String(decoding: encoded, as: UTF8.self) + "?immutable=1"
    }

    /// Copies the whole database, as one consistent snapshot, into the empty file at `path`
    /// (SQLite's online backup API): writers in other processes go on meanwhile. The copy is
    /// left with no -wal beside it.
    func backup(toEmptyFileAt path: String) throws(CofferError) {
        let destination = try SQLiteConnection(path: path, create: false, busyTimeout: .seconds(5))
        destination.allowCheckpointOnClose()
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw Self.error(for: sqlite3_extended_errcode(destination.handle))
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE else { throw Self.error(for: stepped) }
        try destination.check(finished)
        try destination.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Lets closing the connection checkpoint the WAL and remove it, as SQLite does by default;
    /// called once the file has been accepted.
    func allowCheckpointOnClose() {
        _ = coffer_sqlite3_db_config_int(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
        OpenDatabaseFiles.remove(heldFiles)
    }

    /// Notes the files this connection has open (the database, its -wal and -shm), so that no
    /// descriptor of Coffer's own is opened on them while it is open (``OpenDatabaseFiles``).
    func holds(_ files: Set<OpenDatabaseFiles.Identity>) {
        OpenDatabaseFiles.add(files.subtracting(heldFiles))
        heldFiles.formUnion(files)
    }

    /// The first `length` bytes of the database file (fewer for a shorter file), read through
    /// SQLite's own descriptor without a lock and before any statement runs: reading runs no
    /// journal recovery and writes nothing.
    func fileStart(length: Int) throws(CofferError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        var count: Int32 = 0
        let status = bytes.withUnsafeMutableBufferPointer {
            coffer_sqlite3_read_file_start(handle, $0.baseAddress, Int32(length), &count)
        }
        try check(status)
        return Array(bytes.prefix(Int(count)))
    }

    /// Runs SQL with no parameters and no results (PRAGMAs, DDL, BEGIN/COMMIT).
    func execute(_ sql: String) throws(CofferError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw Self.error(for: status) }
    }

    /// Runs a cached prepared statement: binds, lets `body` step through it, then resets it.
    func with<R>(_ sql: StaticString, _ body: (SQLiteStatement) throws(CofferError) -> R) throws(CofferError) -> R {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        return try body(statement)
    }

    /// The first column of the first row of a query, as an integer.
    func integer(_ sql: StaticString) throws(CofferError) -> Int64? {
        try with(sql) { statement throws(CofferError) in try statement.step() ? statement.int64(at: 0) : nil }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction, committing on success and rolling back on error.
    ///
    /// IMMEDIATE takes the write lock up front, so the busy handler covers every wait and a
    /// read-then-write upgrade can never fail with SQLITE_BUSY_SNAPSHOT.
    func transaction<R>(_ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        let switching = switchesToWALBeforeWriting
        if switching {
            try execute("PRAGMA journal_mode = WAL")
            switchesToWALBeforeWriting = false
        }
        try run("BEGIN IMMEDIATE")
        do {
            // The switch made the -wal and -shm, opened by this transaction: this connection's files too.
            if switching { holds(try FileSecurity.checkOpenDescriptors(of: path)) }
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            try? run("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` (a transaction) with `PRAGMA synchronous = NORMAL`, then puts back FULL, the
    /// vault's setting. In WAL mode a commit is then not fsynced: it survives the process being
    /// killed, and a power loss may undo it. For the audit log alone (docs/vault-format.md, 8.2).
    func withoutSyncOnCommit<R>(_ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        try run("PRAGMA synchronous = NORMAL")
        let result: Result<R, CofferError>
        do throws(CofferError) { result = .success(try body()) } catch { result = .failure(error) }
        try run("PRAGMA synchronous = FULL")
        return try result.get()
    }

    /// Runs one cached statement that takes no parameters and returns no rows.
    private func run(_ sql: StaticString) throws(CofferError) {
        try with(sql) { statement throws(CofferError) in try statement.run() }
    }

    /// Runs `body` in a deferred (read) transaction, so all its reads see one snapshot.
    func readTransaction<R>(_ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        try run("BEGIN")
        defer { try? run("COMMIT") }
        return try body()
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Checks a status code from this connection.
    func check(_ status: Int32) throws(CofferError) {
        guard status == SQLITE_OK || status == SQLITE_ROW || status == SQLITE_DONE else {
            throw Self.error(for: status)
        }
    }

    private func cachedStatement(_ sql: StaticString) throws(CofferError) -> SQLiteStatement {
        let key = UnsafeRawPointer(sql.utf8Start)
        if let statement = statements[key] { return statement }
        var raw: OpaquePointer?
        let text = key.assumingMemoryBound(to: CChar.self)
        let status = sqlite3_prepare_v3(handle, text, Int32(sql.utf8CodeUnitCount), UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard status == SQLITE_OK, let raw else { throw Self.error(for: status) }
        let statement = SQLiteStatement(raw, connection: self)
        statements[key] = statement
        return statement
    }

    /// Maps an SQLite result code to a typed error. Uses `sqlite3_errstr`, which names the
    /// code only and so can never echo data.
    ///
    /// Coffer's statements are fixed and valid against the format's schema, so a generic SQL
    /// error, a type mismatch, a constraint failure or a schema change mean the file's
    /// structure is damaged: like SQLITE_CORRUPT and SQLITE_NOTADB, they are ``CofferError/corruptVault(reason:)``.
    static func error(for status: Int32) -> CofferError {
        switch status & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED:
            .storageUnavailable(reason: "the vault stayed busy past the busy timeout")
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            .corruptVault(reason: "the file is not a valid SQLite database")
        case SQLITE_ERROR, SQLITE_SCHEMA, SQLITE_MISMATCH, SQLITE_CONSTRAINT, SQLITE_FORMAT:
            .corruptVault(reason: "the vault's structure is damaged")
        case SQLITE_FULL:
            .storageUnavailable(reason: "the disk is full")
        case SQLITE_READONLY, SQLITE_PERM:
            .storageUnavailable(reason: "the vault file cannot be written (read-only media or permissions)")
        case SQLITE_CANTOPEN:
            .storageUnavailable(reason: "the vault file cannot be opened")
        default:
            .storageUnavailable(reason: "SQLite: \(String(cString: sqlite3_errstr(status)))")
        }
    }
}
