import Foundation
@testable import Coffer

/// Records no Coffer writes, sealed with the vault's own keys, for tests of what readers do with them.
enum RecordForgery {
    /// Seals, into the row of `service`/`account`, a plaintext whose `created` date is 7 bytes long.
    static func sealMalformedRecord(in url: URL, passphrase: String, service: String, account: String) throws {
        let vault = try Vault.open(at: url, unlock: .passphrase(passphrase))
        let id = ItemID.genericPassword(service: service, account: account)
        func field(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] { [tag] + bigEndianBytes(UInt32(value.count)) + value }
        let plaintext = [UInt8(1)] + field(1, Array(service.utf8)) + field(2, Array(account.utf8))
            + field(3, Array("secret".utf8)) + field(4, [0, 0, 0, 0, 0, 0, 1]) + field(5, bigEndianBytes(Int64(1)))
        try vault.withUnlockedKeys { connection, keys throws(CofferError) in
            let rowKey = keys.rowKey(for: id)
            let sealed = AEAD.seal(plaintext, key: keys.recordKey, associatedData: vault.itemAssociatedDataPrefix + rowKey)
            try connection.with("INSERT OR REPLACE INTO items (row_key, record) VALUES (?1, ?2)") { statement throws(CofferError) in
                try statement.bind(.blob(rowKey), .blob(sealed))
                try statement.run()
            }
        }
    }
}
