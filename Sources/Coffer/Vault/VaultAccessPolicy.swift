extension Vault {
    /// The vault's access policy (docs/vault-format.md, 8.1). A vault from before format
    /// version 3 has none stored and reads as ``AccessPolicy/open``, what its migration will
    /// give it; reading it changes nothing.
    ///
    /// Throws ``CofferError/corruptVault(reason:)`` when the stored policy does not open, so that
    /// a damaged or swapped policy never reads as some default.
    package func accessPolicy() throws(CofferError) -> AccessPolicy {
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.readTransaction { () throws(CofferError) in
                guard try Self.formatVersion(connection) >= VaultFormat.accessVersion else { return .open }
                return try readPolicy(connection, keys)
            }
        }
    }

    /// The policy as far as it shows without the vault key: ``AccessPolicy/open`` for a vault
    /// from before format version 3, which keeps none; `nil` for one whose policy is sealed.
    /// Works on a locked vault (`coffer doctor`).
    package func accessPolicyWhileLocked() throws(CofferError) -> AccessPolicy? {
        try withConnection { connection throws(CofferError) in
            try Self.formatVersion(connection) >= VaultFormat.accessVersion ? nil : .open
        }
    }

    /// Sets the vault's access policy in one durable transaction, migrating an older vault to
    /// format version 3 first. Works whatever the stored policy was, even one that does not open.
    package func setAccessPolicy(_ policy: AccessPolicy) throws(CofferError) {
        try withUnlockedKeys { connection, keys throws(CofferError) in
            try connection.transaction { () throws(CofferError) in
                try prepareItemWrite(connection, keys)
                try writePolicy(policy, connection, keys)
            }
        }
    }

    /// Seals and stores the policy, replacing the row's, inside the caller's write transaction.
    func writePolicy(_ policy: AccessPolicy, _ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) {
        try Self.writePolicy(policy, vaultID: vaultID, connection, keys)
    }

    static func writePolicy(_ policy: AccessPolicy, vaultID: [UInt8], _ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) {
        let sealed = AEAD.seal([policy.storedByte], key: keys.recordKey, associatedData: VaultFormat.policyAssociatedData(vaultID: vaultID))
        try connection.with(
            "INSERT INTO access_settings (singleton, policy) VALUES (1, ?1) ON CONFLICT (singleton) DO UPDATE SET policy = excluded.policy"
        ) { statement throws(CofferError) in
            try statement.bind(.blob(sealed))
            try statement.run()
        }
    }

    /// The stored policy of a version 3 vault. Throws ``CofferError/locked`` when another process
    /// rotated the vault key, and ``CofferError/corruptVault(reason:)`` when the policy does not open.
    func readPolicy(_ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) -> AccessPolicy {
        let sealed = try connection.with("SELECT policy FROM access_settings WHERE singleton = 1") { statement throws(CofferError) in
            try statement.step() ? statement.blob(at: 0) : nil
        }
        guard let sealed else { throw .corruptVault(reason: "the access policy is missing") }
        guard let plaintext = AEAD.open(sealed, key: keys.recordKey, associatedData: VaultFormat.policyAssociatedData(vaultID: vaultID)),
              plaintext.count == 1, let policy = AccessPolicy(storedByte: plaintext[0])
        else {
            try Self.verifyKeyCheck(connection, keys)
            throw .corruptVault(reason: "the access policy does not open")
        }
        return policy
    }

    /// Checks, with no key, that a version 3 vault has its one policy row of the policy's size
    /// (docs/vault-format.md, 2): without it the vault is corrupt, so deleting the row can never
    /// weaken the policy.
    static func checkPolicyRow(_ connection: SQLiteConnection) throws(CofferError) {
        let rows = try connection.with("SELECT singleton, length(policy) FROM access_settings LIMIT 2") { statement throws(CofferError) in
            var rows: [(Int64, Int64)] = []
            while try statement.step() { rows.append((statement.int64(at: 0), statement.int64(at: 1))) }
            return rows
        }
        guard rows.count == 1, rows[0] == (1, Int64(VaultFormat.sealedPolicyLength)) else {
            throw .corruptVault(reason: "the access policy is missing or damaged")
        }
    }
}
