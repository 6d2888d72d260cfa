import CofferTestSupport
import CSQLite
import Foundation
import XCTest
@testable import Coffer

extension TestClock {
    /// A clock at a whole second, so dates the vault stores (in milliseconds) compare equal.
    static func wholeSecond() -> TestClock { TestClock(Date(timeIntervalSince1970: 1_800_000_000)) }
}

extension PassphraseCost {
    /// Argon2id at its minimum sensible cost: keeps tests fast; production defaults are tested separately.
    static let test = PassphraseCost(operations: 1, memoryBytes: 64 * 1024)
}

extension Vault.Configuration {
    static func test(clock: TestClock? = nil, autoLockAfter: Duration? = nil) -> Vault.Configuration {
        Vault.Configuration(passphraseCost: .test, autoLockAfter: autoLockAfter, now: { clock?.now ?? Date() })
    }
}

let testPassphrase = "correct horse battery staple"

extension TemporaryFolder {
    /// A new vault in this folder, unlocked with ``testPassphrase``.
    func makeVault(
        _ name: String = "test.vault", credential: VaultCredential = .passphrase(testPassphrase),
        configuration: Vault.Configuration = .test()
    ) throws -> Vault {
        try Vault.create(at: file(name), with: credential, configuration: configuration)
    }
}

/// Direct SQL access to a vault file, to inspect or tamper with it as an attacker would.
final class RawVaultFile {
    private var db: OpaquePointer?

    init(_ url: URL) throws {
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw CofferError.storageUnavailable(reason: "test could not open \(url.path)")
        }
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { sqlite3_close_v2(db) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw CofferError.storageUnavailable(reason: String(cString: sqlite3_errmsg(db)))
        }
    }

    /// Runs a query; each row is an array of column values (blobs as [UInt8], integers as Int64, text as String).
    func rows(_ sql: String, _ parameters: [[UInt8]] = []) throws -> [[Any]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            throw CofferError.storageUnavailable(reason: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        for (index, blob) in parameters.enumerated() {
            _ = blob.withUnsafeBytes { sqlite3_bind_blob(statement, Int32(index + 1), $0.baseAddress, Int32(blob.count), coffer_sqlite3_transient()) }
        }
        var result: [[Any]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append((0..<sqlite3_column_count(statement)).map { column -> Any in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: return sqlite3_column_int64(statement, column)
                case SQLITE_TEXT: return String(cString: sqlite3_column_text(statement, column))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    guard count > 0 else { return [UInt8]() }
                    return [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, column), count: count))
                default: return NSNull()
                }
            })
        }
        return result
    }

    /// Every item row: (row_key, record), in row-key order.
    func items() throws -> [(rowKey: [UInt8], record: [UInt8])] {
        try rows("SELECT row_key, record FROM items ORDER BY row_key").map { ($0[0] as! [UInt8], $0[1] as! [UInt8]) }
    }

    func setRecord(_ record: [UInt8], at rowKey: [UInt8]) throws {
        _ = try rows("UPDATE items SET record = ?1 WHERE row_key = ?2", [record, rowKey])
    }

    func insertRecord(_ record: [UInt8], at rowKey: [UInt8]) throws {
        _ = try rows("INSERT OR REPLACE INTO items (row_key, record) VALUES (?2, ?1)", [record, rowKey])
    }
}

/// Asserts that `body` throws exactly `expected`.
func XCTAssertThrows<T>(
    _ expected: CofferError, _ body: @autoclosure () throws -> T, _ message: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    do {
        _ = try body()
        XCTFail("expected \(expected), got a result. \(message())", file: file, line: line)
    } catch let error as CofferError {
        XCTAssertEqual(error, expected, message(), file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error). \(message())", file: file, line: line)
    }
}

extension Vault {
    /// Seals `plaintext` into the row of `id` with the vault's own keys, as a writer holding
    /// the vault key could: for testing what readers accept. `rowOf` puts it in another item's row.
    func forgeRecord(_ plaintext: [UInt8], for id: ItemID, rowOf other: ItemID? = nil) throws {
        try withUnlockedKeys { connection, keys throws(CofferError) in
            let rowKey = keys.rowKey(for: other ?? id)
            let sealed = AEAD.seal(plaintext, key: keys.recordKey, associatedData: itemAssociatedDataPrefix + rowKey)
            try connection.with("INSERT OR REPLACE INTO items (row_key, record) VALUES (?1, ?2)") { statement throws(CofferError) in
                try statement.bind(.blob(rowKey), .blob(sealed))
                try statement.run()
            }
        }
    }
}
