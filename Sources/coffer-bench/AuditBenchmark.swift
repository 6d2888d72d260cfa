@_spi(Benchmarks) import Coffer
import CSodium
import Foundation

/// `coffer-bench audit`: appending to a vault's audit log (committed, not fsynced: synchronous
/// NORMAL) beside a durable item `set` (fsynced: FULL), and both SQLite floors, on a log at its
/// bound of 10,000 entries, where every append also deletes the oldest.
enum AuditBenchmark {
    static let appends = 300
    static let warmup = 20

    static func run() throws {
        print("## coffer-bench audit\n")
        print("Medians of \(appends) appends to a full audit log (10,000 entries) and \(appends) durable sets, interleaved.\n")
        try Measurement.withTemporaryFolder { folder in
            let vault = try Vault.create(at: folder.appendingPathComponent("audit.vault"), with: .key(.random(count: 32)))
            let entry = AuditEntry(
                time: Date(), program: Program.current(), frontDoor: .agent, action: .read,
                item: .genericPassword(service: "com.example.service", account: "user@example.com"), decision: .owner)
            for _ in 0..<10_000 { try vault.appendAudit(entry) }
            let id = ItemID.genericPassword(service: "com.example.service", account: "user@example.com")
            let secret = Data(repeating: 0x5A, count: 64)
            let key = SecureBytes.random(count: 32)
            let floors = try ["FULL", "NORMAL"].map { try RawSQLite(path: folder.appendingPathComponent("floor-\($0).sqlite").path, synchronous: $0) }
            let rowKey = VaultBenchmark.randomBytes(32)
            let records = (0..<(appends + warmup)).map { _ in VaultBenchmark.sealedRecord(length: 150, key: key) }
            let medians = try Measurement.interleavedMedians(count: appends, warmup: warmup, [
                { _ in try vault.appendAudit(entry) },
                { _ in try vault.set(secret, for: id) },
                { index in try floors[0].put(rowKey, records[index]) },
                { index in try floors[1].put(rowKey, records[index]) },
            ])
            print("| operation | median |")
            print("|---|---:|")
            for (name, median) in zip(
                ["audit append (synchronous NORMAL)", "item set (synchronous FULL)", "SQLite floor, FULL", "SQLite floor, NORMAL"], medians
            ) {
                print("| \(name) | \(Measurement.format(median)) |")
            }
            print()
        }
    }
}
