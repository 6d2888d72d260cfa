@_spi(Benchmarks) import Coffer
import CSodium
import Foundation

/// `coffer-bench vault`: warm `get` and durable `set` against their SQLite floors, at three sizes.
enum VaultBenchmark {
    /// The vault sizes; `COFFER_BENCH_SIZES=100,1000` overrides them for a quick run.
    static let sizes = ProcessInfo.processInfo.environment["COFFER_BENCH_SIZES"]?
        .split(separator: ",").compactMap { Int($0) } ?? [100, 10_000, 100_000]
    static let secretLength = 64
    static let gets = 5_000
    static let sets = 300
    static let warmup = 500

    struct Row {
        let size: Int
        let get: Double, readFloor: Double
        let set: Double, writeFloor: Double
    }

    static func run() throws {
        print("## coffer-bench vault\n")
        print("\(secretLength)-byte secrets; medians of \(gets) warm gets and \(sets) durable sets per size.\n")
        var rows: [Row] = []
        for size in sizes {
            rows.append(try measure(size: size))
        }
        print("| items | get | read floor | get / floor | set | write floor | set / floor |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for row in rows {
            print("| \(row.size) | \(Measurement.format(row.get)) | \(Measurement.format(row.readFloor)) | \(Measurement.ratio(row.get, row.readFloor)) | \(Measurement.format(row.set)) | \(Measurement.format(row.writeFloor)) | \(Measurement.ratio(row.set, row.writeFloor)) |")
        }
        let small = rows.first!, large = rows.last!
        print("\n\(large.size) items vs \(small.size): get \(Measurement.ratio(large.get, small.get)), set \(Measurement.ratio(large.set, small.set))")
        print("targets: get ≤ 2× floor, set ≤ 1.3× floor, \(large.size) items ≤ 1.5× of \(small.size)\n")
    }

    static func measure(size: Int) throws -> Row {
        try Measurement.withTemporaryFolder { folder in
            let secret = Data(repeating: 0x5A, count: secretLength)
            let ids = (0..<size).map { ItemID.genericPassword(service: "com.example.service\($0 % 10)", account: "user\($0)@example.com") }

            let vault = try Vault.create(at: folder.appendingPathComponent("bench.vault"), with: .key(.random(count: 32)))
            for start in stride(from: 0, to: size, by: 10_000) {
                try vault.set(ids[start..<min(start + 10_000, size)].map { ($0, secret, ItemOptions()) })
            }
            // The floor: the same row sizes in a bare table with the same settings.
            let raw = try RawSQLite(path: folder.appendingPathComponent("floor.sqlite").path)
            let key = SecureBytes.random(count: 32)
            let rawKeys = (0..<size).map { _ in randomBytes(32) }
            try raw.fill(rawKeys.map { ($0, sealedRecord(length: 150, key: key)) })

            var generator = SystemRandomNumberGenerator()
            let picks = (0..<(gets + warmup)).map { _ in Int.random(in: 0..<size, using: &generator) }
            let (get, readFloor) = try Measurement.interleavedMedians(
                count: gets, warmup: warmup,
                subject: { index in
                    guard try vault.secret(for: ids[picks[index]]) != nil else { throw CofferError.itemNotFound }
                },
                floor: { index in
                    guard let record = raw.get(rawKeys[picks[index]]), open(record, key: key) else {
                        throw CofferError.integrityFailure
                    }
                })
            // Fresh bytes per write: SQLite skips rewriting a cell whose bytes are unchanged,
            // and the vault's records always change (new nonce).
            let freshRecords = (0..<(sets + warmup)).map { _ in sealedRecord(length: 150, key: key) }
            let (set, writeFloor) = try Measurement.interleavedMedians(
                count: sets, warmup: 10,
                subject: { index in try vault.set(secret, for: ids[picks[index]]) },
                floor: { index in try raw.put(rawKeys[picks[index]], freshRecords[index]) })
            return Row(size: size, get: get, readFloor: readFloor, set: set, writeFloor: writeFloor)
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// An XChaCha20-Poly1305 box of `length` plaintext bytes, like a vault record.
    static func sealedRecord(length: Int, key: SecureBytes) -> [UInt8] {
        let plaintext = randomBytes(length)
        var sealed = [UInt8](repeating: 0, count: 24 + length + 16)
        randombytes_buf(&sealed, 24)
        var sealedLength: UInt64 = 0
        key.withUnsafeBytes { keyBytes in
            sealed.withUnsafeMutableBufferPointer { out in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    out.baseAddress! + 24, &sealedLength, plaintext, UInt64(length), nil, 0, nil,
                    out.baseAddress!, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return sealed
    }

    /// One AEAD decryption of a record, as the vault does per read.
    static func open(_ sealed: [UInt8], key: SecureBytes) -> Bool {
        var plaintext = [UInt8](repeating: 0, count: sealed.count - 40)
        var length: UInt64 = 0
        return key.withUnsafeBytes { keyBytes in
            sealed.withUnsafeBufferPointer { box in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    &plaintext, &length, nil, box.baseAddress! + 24, UInt64(sealed.count - 24), nil, 0,
                    box.baseAddress!, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
            }
        }
    }
}
