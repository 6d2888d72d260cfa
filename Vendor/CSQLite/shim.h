#include <sqlite3.h>

// Swift cannot call C variadic functions; these fixed-arity wrappers expose the few used.

/// Sets an integer `sqlite3_db_config` option (e.g. SQLITE_DBCONFIG_DEFENSIVE).
static inline int coffer_sqlite3_db_config_int(sqlite3 *db, int op, int value) {
    return sqlite3_db_config(db, op, value, (int *)0);
}

/// SQLITE_TRANSIENT is a macro over a function-pointer cast that Swift cannot import.
static inline sqlite3_destructor_type coffer_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

/// Reads up to `length` bytes from the start of the main database file through the descriptor
/// SQLite opened (no descriptor of the caller's own: closing one would drop every POSIX lock the
/// process holds on the file, SQLite's included). Sets `*count` to the bytes read.
static inline int coffer_sqlite3_read_file_start(sqlite3 *db, unsigned char *buffer, int length, int *count) {
    sqlite3_file *file = 0;
    *count = 0;
    int status = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file);
    if (status != SQLITE_OK) return status;
    if (file == 0 || file->pMethods == 0) return SQLITE_CANTOPEN;
    sqlite3_int64 size = 0;
    status = file->pMethods->xFileSize(file, &size);
    if (status != SQLITE_OK) return status;
    int wanted = size < length ? (int)size : length;
    if (wanted > 0) {
        status = file->pMethods->xRead(file, buffer, wanted, 0);
        if (status != SQLITE_OK) return status;
    }
    *count = wanted;
    return SQLITE_OK;
}
