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
