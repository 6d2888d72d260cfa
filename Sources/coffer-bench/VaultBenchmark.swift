@_spi(Benchmarks) import Coffer
import CSodium
import Foundation

/// `coffer-bench vault`: warm `get` and durable `set` against their SQLite floors, at three sizes.
///
/// Every size's vault and floor are built first; then each round times one operation on each,
/// in turn, so every number in the table was taken under the same disk and cache conditions.
enum VaultBenchmark {
    /// The vault sizes; `COFFER_BENCH_SIZES=100,1000` overrides them for a quick run.
    static let sizes = ProcessInfo.processInfo.environment["COFFER_BENCH_SIZES"]?
        .split(separator: ",").compactMap { Int($0) } ?? [100, 10_000, 100_000]
    static let secretLength = 64
    /// Timed gets and sets per size; `COFFER_BENCH_GETS` and `COFFER_BENCH_SETS` override them
    /// (more sets steady the medians of a busy disk; more gets give a profiler time to sample).
    static let gets = count("COFFER_BENCH_GETS") ?? 5_000
    static let sets = count("COFFER_BENCH_SETS") ?? 300
    static let warmup = 500

    /// One size: the vault, its floor table and the operations on both.
    struct Subject {
        let size: Int
        let vault: Vault
        let raw: RawSQLite
        let ids: [ItemID]
        let rawKeys: [[UInt8]]
        let picks: [Int]
        let freshRecords: [[UInt8]]
    }

    static func run() throws {
        print("## coffer-bench vault\n")
        print("\(secretLength)-byte secrets; medians of \(gets) warm gets and \(sets) durable sets per size, all sizes interleaved.\n")
        try Measurement.withTemporaryFolder { folder in
            let key = SecureBytes.random(count: 32)
            let subjects = try sizes.map { try makeSubject(size: $0, folder: folder, floorKey: key) }
            print()
            let secret = Data(repeating: 0x5A, count: secretLength)

            let getMedians = try Measurement.interleavedMedians(count: gets, warmup: warmup, subjects.flatMap { subject in [
                { index in
                    guard try subject.vault.secret(for: subject.ids[subject.picks[index]]) != nil else { throw CofferError.itemNotFound }
                },
                { index in
                    guard let record = subject.raw.get(subject.rawKeys[subject.picks[index]]), open(record, key: key) else {
                        throw CofferError.integrityFailure
                    }
                },
            ] })
            // Fresh bytes per floor write: SQLite skips rewriting a cell whose bytes are unchanged,
            // and the vault's records always change (new nonce).
            let setMedians = try Measurement.interleavedMedians(count: sets, warmup: 10, subjects.flatMap { subject in [
                { index in try subject.vault.set(secret, for: subject.ids[subject.picks[index]]) },
                { index in try subject.raw.put(subject.rawKeys[subject.picks[index]], subject.freshRecords[index]) },
            ] })

            print("| items | get | read floor | get / floor | set | write floor | set / floor |")
            print("|---:|---:|---:|---:|---:|---:|---:|")
            for (row, subject) in subjects.enumerated() {
                let (get, readFloor) = (getMedians[2 * row], getMedians[2 * row + 1])
                let (set, writeFloor) = (setMedians[2 * row], setMedians[2 * row + 1])
                print("| \(subject.size) | \(Measurement.format(get)) | \(Measurement.format(readFloor)) | \(Measurement.ratio(get, readFloor)) | \(Measurement.format(set)) | \(Measurement.format(writeFloor)) | \(Measurement.ratio(set, writeFloor)) |")
            }
            let last = 2 * (subjects.count - 1)
            print("\n\(subjects.last!.size) items vs \(subjects[0].size): get \(Measurement.ratio(getMedians[last], getMedians[0])), set \(Measurement.ratio(setMedians[last], setMedians[0]))")
            print("targets: get ≤ 1.5× floor, set ≤ 1.2× floor, \(subjects.last!.size) items ≤ 1.5× of \(subjects[0].size)\n")
        }
    }

    static func makeSubject(size: Int, folder: URL, floorKey: SecureBytes) throws -> Subject {
        let secret = Data(repeating: 0x5A, count: secretLength)
        let ids = (0..<size).map { ItemID.genericPassword(service: "com.example.service\($0 % 10)", account: "user\($0)@example.com") }
        let vaultURL = folder.appendingPathComponent("bench-\(size).vault")
        let vault = try Vault.create(at: vaultURL, with: .key(.random(count: 32)))
        for start in stride(from: 0, to: size, by: 10_000) {
            try vault.set(ids[start..<min(start + 10_000, size)].map { ($0, secret, ItemOptions()) })
        }
        // The floor: rows of the vault's own record size (names, dates and owner included) in a
        // bare table with the same settings.
        let plaintextLength = try RawSQLite.longestRecord(inFileAt: vaultURL.path) - 40
        let raw = try RawSQLite(path: folder.appendingPathComponent("floor-\(size).sqlite").path)
        let rawKeys = (0..<size).map { _ in randomBytes(32) }
        try raw.fill(rawKeys.map { ($0, sealedRecord(length: plaintextLength, key: floorKey)) })
        print("\(size) items: \(plaintextLength + 40)-byte records in the vault and the floor")
        var generator = SystemRandomNumberGenerator()
        return Subject(
            size: size, vault: vault, raw: raw, ids: ids, rawKeys: rawKeys,
            picks: (0..<(max(gets, sets) + warmup)).map { _ in Int.random(in: 0..<size, using: &generator) },
            freshRecords: (0..<(sets + 10)).map { _ in sealedRecord(length: plaintextLength, key: floorKey) })
    }

    static func count(_ variable: String) -> Int? {
        ProcessInfo.processInfo.environment[variable].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
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
