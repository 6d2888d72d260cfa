/// The tables of a vault, per format version: how a new vault is made, how a version 1 vault
/// gains version 2's attribute index and a version 2 vault version 3's access tables, and the
/// check that an existing file has exactly its version's tables (docs/vault-format.md, section 2).
enum VaultSchema {
    /// One column as `PRAGMA table_info` reports it.
    struct Column: Equatable {
        let name: String
        let type: String
        let notNull: Bool
        let primaryKey: Bool
    }

    /// One table: its columns in order, and whether it is `WITHOUT ROWID`.
    struct Table {
        let name: String
        let columns: [Column]
        let withoutRowID: Bool
        let statement: String
    }

    /// Version 1's tables, which every version has.
    static let baseTables = [
        Table(
            name: "vault",
            columns: [
                Column(name: "singleton", type: "INTEGER", notNull: false, primaryKey: true),
                Column(name: "vault_id", type: "BLOB", notNull: true, primaryKey: false),
                Column(name: "key_check", type: "BLOB", notNull: true, primaryKey: false),
                Column(name: "created_at", type: "INTEGER", notNull: true, primaryKey: false),
            ],
            withoutRowID: false,
            statement: """
                CREATE TABLE vault (
                    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                    vault_id BLOB NOT NULL,
                    key_check BLOB NOT NULL,
                    created_at INTEGER NOT NULL)
                """),
        Table(
            name: "key_slots",
            columns: [
                Column(name: "slot_id", type: "INTEGER", notNull: false, primaryKey: true),
                Column(name: "kind", type: "TEXT", notNull: true, primaryKey: false),
                Column(name: "kdf", type: "TEXT", notNull: false, primaryKey: false),
                Column(name: "opslimit", type: "INTEGER", notNull: false, primaryKey: false),
                Column(name: "memlimit", type: "INTEGER", notNull: false, primaryKey: false),
                Column(name: "salt", type: "BLOB", notNull: false, primaryKey: false),
                Column(name: "wrapped_key", type: "BLOB", notNull: true, primaryKey: false),
                Column(name: "created_at", type: "INTEGER", notNull: true, primaryKey: false),
            ],
            withoutRowID: false,
            statement: """
                CREATE TABLE key_slots (
                    slot_id INTEGER PRIMARY KEY,
                    kind TEXT NOT NULL,
                    kdf TEXT,
                    opslimit INTEGER,
                    memlimit INTEGER,
                    salt BLOB,
                    wrapped_key BLOB NOT NULL,
                    created_at INTEGER NOT NULL)
                """),
        Table(
            name: "items",
            columns: [
                Column(name: "row_key", type: "BLOB", notNull: true, primaryKey: true),
                Column(name: "record", type: "BLOB", notNull: true, primaryKey: false),
            ],
            withoutRowID: true,
            statement: "CREATE TABLE items (row_key BLOB PRIMARY KEY, record BLOB NOT NULL) WITHOUT ROWID"),
    ]

    /// Version 2's attribute index (section 5.4).
    static let attributeIndexTable = Table(
        name: AttributeIndex.table,
        columns: [
            Column(name: "token", type: "BLOB", notNull: true, primaryKey: true),
            Column(name: "row_key", type: "BLOB", notNull: true, primaryKey: true),
        ],
        withoutRowID: true,
        statement: """
            CREATE TABLE attribute_index (
                token BLOB NOT NULL,
                row_key BLOB NOT NULL,
                PRIMARY KEY (token, row_key)) WITHOUT ROWID
            """)

    /// Version 2's one index: the attribute index's rows by item, to remove an item's rows.
    static let attributeIndexByRow = (
        name: "attribute_index_by_row", table: AttributeIndex.table, columns: ["row_key"],
        statement: "CREATE INDEX attribute_index_by_row ON attribute_index (row_key)")

    /// Version 3's access policy (section 8.1): one row.
    static let accessSettingsTable = Table(
        name: "access_settings",
        columns: [
            Column(name: "singleton", type: "INTEGER", notNull: false, primaryKey: true),
            Column(name: "policy", type: "BLOB", notNull: true, primaryKey: false),
        ],
        withoutRowID: false,
        statement: """
            CREATE TABLE access_settings (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                policy BLOB NOT NULL)
            """)

    /// Version 3's audit log (section 8.2).
    static let auditLogTable = Table(
        name: "audit_log",
        columns: [
            Column(name: "sequence", type: "INTEGER", notNull: false, primaryKey: true),
            Column(name: "entry", type: "BLOB", notNull: true, primaryKey: false),
        ],
        withoutRowID: false,
        statement: "CREATE TABLE audit_log (sequence INTEGER PRIMARY KEY, entry BLOB NOT NULL)")

    static func tables(version: UInt32) -> [Table] {
        var tables = baseTables
        if version >= VaultFormat.attributeIndexVersion { tables.append(attributeIndexTable) }
        if version >= VaultFormat.accessVersion { tables += [accessSettingsTable, auditLogTable] }
        return tables
    }

    /// Creates the current version's tables in a new database.
    static func create(_ connection: SQLiteConnection) throws(CofferError) {
        for table in baseTables { try connection.execute(table.statement) }
        try addAttributeIndex(connection)
        try addAccessTables(connection)
    }

    /// Adds version 3's tables to a version 2 database (inside the caller's transaction).
    static func addAccessTables(_ connection: SQLiteConnection) throws(CofferError) {
        try connection.execute(accessSettingsTable.statement)
        try connection.execute(auditLogTable.statement)
    }

    /// Adds version 2's table and index to a version 1 database (inside the caller's transaction).
    static func addAttributeIndex(_ connection: SQLiteConnection) throws(CofferError) {
        try connection.execute(attributeIndexTable.statement)
        try connection.execute(attributeIndexByRow.statement)
    }

    /// Throws ``CofferError/corruptVault(reason:)`` unless the database holds exactly the
    /// tables of format `version`, with their columns, version 2's one index, and no other
    /// table, index, trigger or view (SQLite's own `sqlite_` objects aside). The rows of a
    /// version 3 file's `access_settings` are checked by ``Vault/checkPolicyRow(_:)``.
    static func check(_ connection: SQLiteConnection, version: UInt32) throws(CofferError) {
        let tables = tables(version: version)
        let indexes = version >= VaultFormat.attributeIndexVersion ? [attributeIndexByRow.name] : []
        let objects = try connection.with("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'") {
            statement throws(CofferError) in
            var objects: [(type: String, name: String)] = []
            while try statement.step() { objects.append((statement.text(at: 0) ?? "", statement.text(at: 1) ?? "")) }
            return objects
        }
        guard !objects.contains(where: { $0.type == "trigger" || $0.type == "view" }) else {
            throw .corruptVault(reason: "unexpected triggers or views")
        }
        guard objects.count == tables.count + indexes.count,
              Set(objects.filter { $0.type == "table" }.map(\.name)) == Set(tables.map(\.name)),
              Set(objects.filter { $0.type == "index" }.map(\.name)) == Set(indexes)
        else { throw .corruptVault(reason: "the vault's tables are not the format's") }
        if version >= VaultFormat.attributeIndexVersion {
            guard try indexedColumns(attributeIndexByRow.name, connection) == (attributeIndexByRow.table, attributeIndexByRow.columns) else {
                throw .corruptVault(reason: "the attribute index is not the format's")
            }
        }
        for table in tables {
            let (columns, withoutRowID) = try describe(table.name, connection)
            guard columns == table.columns, withoutRowID == table.withoutRowID else {
                throw .corruptVault(reason: "the \(table.name) table is not the format's")
            }
        }
    }

    /// The table and the columns of an index, in order.
    private static func indexedColumns(_ name: String, _ connection: SQLiteConnection) throws(CofferError) -> (String, [String]) {
        let table = try connection.with("SELECT tbl_name FROM sqlite_schema WHERE type = 'index' AND name = ?1") { statement throws(CofferError) in
            try statement.bind(.text(name))
            return try statement.step() ? statement.text(at: 0) ?? "" : ""
        }
        let columns = try connection.with("SELECT name FROM pragma_index_info(?1) ORDER BY seqno") { statement throws(CofferError) in
            try statement.bind(.text(name))
            var columns: [String] = []
            while try statement.step() { columns.append(statement.text(at: 0) ?? "") }
            return columns
        }
        return (table, columns)
    }

    private static func describe(_ name: String, _ connection: SQLiteConnection) throws(CofferError) -> ([Column], Bool) {
        let columns = try connection.with(#"SELECT name, upper(type), "notnull", pk FROM pragma_table_info(?1)"#) {
            statement throws(CofferError) in
            try statement.bind(.text(name))
            var columns: [Column] = []
            while try statement.step() {
                columns.append(Column(
                    name: statement.text(at: 0) ?? "", type: statement.text(at: 1) ?? "",
                    notNull: statement.int64(at: 2) != 0, primaryKey: statement.int64(at: 3) != 0))
            }
            return columns
        }
        let withoutRowID = try connection.with("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1") {
            statement throws(CofferError) in
            try statement.bind(.text(name))
            return try statement.step() && statement.int64(at: 0) != 0
        }
        return (columns, withoutRowID)
    }
}
