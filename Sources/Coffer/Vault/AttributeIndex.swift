/// The vault's attribute index (format version 2, docs/vault-format.md section 5.4): one keyed
/// BLAKE2b token per attribute name and value of every item, so that a search by attributes
/// reads the few records it names instead of decrypting every record.
///
/// Index rows are not authenticated: a search opens every candidate record and checks its
/// attributes, so a forged or stale row can hide nothing and add nothing.
enum AttributeIndex {
    static let table = "attribute_index"

    /// Above this many rows for one token, a token is not used to pick the candidates while a
    /// more selective one exists.
    static let selectiveRows = 64

    /// `BLAKE2b-128(key = attribute key, message = u32be(len(name)) || name || value)`, name and
    /// value in Unicode NFC.
    static func token(name: String, value: String, _ keys: VaultKeys) -> [UInt8] {
        KeyedHash.hash(
            lengthPrefixed(Normalization.nfcBytes(name)) + Normalization.nfcBytes(value), key: keys.attributeKey,
            outputLength: VaultFormat.attributeTokenLength)
    }

    /// The item's tokens, one per attribute of ``ItemAttributes/indexedAttributes``.
    static func tokens(of attributes: ItemAttributes, _ keys: VaultKeys) -> [[UInt8]] {
        attributes.indexedAttributes.map { token(name: $0.key, value: $0.value, keys) }
    }

    /// Writes the rows of one item, whose row key has no rows yet.
    static func insert(_ attributes: ItemAttributes, rowKey: [UInt8], _ keys: VaultKeys, _ connection: SQLiteConnection) throws(CofferError) {
        for token in tokens(of: attributes, keys) { try insert(token, rowKey: rowKey, connection) }
    }

    private static func insert(_ token: [UInt8], rowKey: [UInt8], _ connection: SQLiteConnection) throws(CofferError) {
        try connection.with("INSERT OR IGNORE INTO attribute_index (token, row_key) VALUES (?1, ?2)") { statement throws(CofferError) in
            try statement.bind(.blob(token), .blob(rowKey))
            try statement.run()
        }
    }

    /// Removes every row of one item.
    static func remove(rowKey: [UInt8], _ connection: SQLiteConnection) throws(CofferError) {
        try connection.with("DELETE FROM attribute_index WHERE row_key = ?1") { statement throws(CofferError) in
            try statement.bind(.blob(rowKey))
            try statement.run()
        }
    }

    /// Makes one item's rows those of `attributes`, writing only the rows that change: an item
    /// rewritten with the same attributes (a new secret) touches no index page, so its commit
    /// costs what a vault without the index would.
    static func replace(_ attributes: ItemAttributes, rowKey: [UInt8], _ keys: VaultKeys, _ connection: SQLiteConnection) throws(CofferError) {
        let wanted = Set(tokens(of: attributes, keys))
        let present = try connection.with("SELECT token FROM attribute_index WHERE row_key = ?1") { statement throws(CofferError) in
            try statement.bind(.blob(rowKey))
            var tokens: Set<[UInt8]> = []
            while try statement.step() { tokens.insert(statement.blob(at: 0)) }
            return tokens
        }
        for token in present.subtracting(wanted) {
            try connection.with("DELETE FROM attribute_index WHERE token = ?1 AND row_key = ?2") { statement throws(CofferError) in
                try statement.bind(.blob(token), .blob(rowKey))
                try statement.run()
            }
        }
        for token in wanted.subtracting(present) { try insert(token, rowKey: rowKey, connection) }
    }

    /// The row keys of the items whose index rows hold every token of `attributes` (not empty).
    ///
    /// The most selective token picks the candidates (the first one with at most
    /// ``selectiveRows`` rows, else the one with the fewest); each candidate is then checked
    /// against the other tokens by primary-key lookups. So a search costs a few index lookups
    /// whatever the vault's size, even when one attribute (`xdg:schema`) is on every item.
    static func candidates(for attributes: [String: String], _ keys: VaultKeys, _ connection: SQLiteConnection) throws(CofferError) -> [[UInt8]] {
        let tokens = Set(attributes.map { token(name: $0.key, value: $0.value, keys) })
        var smallest: (token: [UInt8], rows: [[UInt8]])?
        for token in tokens {
            let rows = try rowKeys(for: token, limit: selectiveRows + 1, connection)
            if smallest == nil || rows.count < smallest!.rows.count { smallest = (token, rows) }
            if rows.count <= selectiveRows { break }
        }
        guard let smallest else { return [] }
        let pick = smallest.token
        var rows = smallest.rows
        if rows.count > selectiveRows { rows = try rowKeys(for: pick, limit: nil, connection) }
        let others = tokens.subtracting([pick])
        var matching: [[UInt8]] = []
        candidates: for rowKey in rows {
            for token in others where !(try contains(token, rowKey: rowKey, connection)) { continue candidates }
            matching.append(rowKey)
        }
        return matching
    }

    private static func rowKeys(for token: [UInt8], limit: Int?, _ connection: SQLiteConnection) throws(CofferError) -> [[UInt8]] {
        try connection.with("SELECT row_key FROM attribute_index WHERE token = ?1 LIMIT ?2") { statement throws(CofferError) in
            try statement.bind(.blob(token), .integer(Int64(limit ?? -1)))
            var rows: [[UInt8]] = []
            while try statement.step() { rows.append(statement.blob(at: 0)) }
            return rows
        }
    }

    private static func contains(_ token: [UInt8], rowKey: [UInt8], _ connection: SQLiteConnection) throws(CofferError) -> Bool {
        try connection.with("SELECT 1 FROM attribute_index WHERE token = ?1 AND row_key = ?2") { statement throws(CofferError) in
            try statement.bind(.blob(token), .blob(rowKey))
            return try statement.step()
        }
    }
}

extension ItemAttributes {
    /// The item's attributes as the Secret Service shows them and the vault's attribute index
    /// keeps them (docs/vault-format.md, 5.4): its custom attributes, with the names of its
    /// class over any custom attribute of the same name.
    ///
    /// - A generic password: `service` and `username`.
    /// - An internet password: `server`, `user`, and `protocol`, `port` (decimal), `object`
    ///   (the path) and `authtype` when set.
    /// - An attribute item: its custom attributes alone.
    package var indexedAttributes: [String: String] {
        var attributes = custom
        switch id.itemClass {
        case .genericPassword:
            attributes[AttributeName.service] = id.service
            attributes[AttributeName.username] = id.account
        case .internetPassword:
            attributes[AttributeName.server] = id.service
            attributes[AttributeName.user] = id.account
            if let internet {
                if let value = internet.protocol { attributes[AttributeName.protocol] = value }
                if let port = internet.port { attributes[AttributeName.port] = String(port) }
                if let value = internet.path { attributes[AttributeName.object] = value }
                if let value = internet.authenticationType { attributes[AttributeName.authtype] = value }
            }
        case .attributeItem:
            break
        }
        return attributes
    }
}

/// The attribute names the classes' fields take, in the vault's index and on the Secret Service:
/// the convention of `secret-tool`, python-keyring and go-keyring, and libsecret's network schema.
package enum AttributeName {
    package static let service = "service"
    package static let username = "username"
    package static let server = "server"
    package static let user = "user"
    package static let `protocol` = "protocol"
    package static let port = "port"
    package static let object = "object"
    package static let authtype = "authtype"
}
