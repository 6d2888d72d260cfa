import Coffer
import Foundation

/// `coffer-bench secret-service`: the Secret Service backend's `get` and `set` beside the
/// vault's and beside libsecret's own one-call functions (the floor), all in one run, and
/// their ratios.
///
/// It writes to the default collection of whatever Secret Service it finds, so it runs only on
/// the private keyring of scripts/with-secret-service.sh (`make bench` uses it), or on your own
/// keyring when COFFER_BENCH_SECRET_SERVICE=1 says so. Its items are removed afterwards.
enum SecretServiceBenchmark {
    static let items = 100
    static let secretLength = 64
    static let gets = 300
    static let sets = 60
    static let service = "coffer-bench.secret-service"
    static let floorService = "coffer-bench.libsecret-floor"

    static func run() throws {
        print("## coffer-bench secret-service\n")
        let environment = ProcessInfo.processInfo.environment
        guard environment["COFFER_REQUIRE_SECRET_SERVICE"] == "1" || environment["COFFER_BENCH_SECRET_SERVICE"] == "1" else {
            print("skipped: run it on a private keyring (`make bench`), or set COFFER_BENCH_SECRET_SERVICE=1 to use yours\n")
            return
        }
        let status = try SecretService.status()
        guard status == .available else {
            print("skipped: the Secret Service is \(status)\n")
            return
        }
        let keyring = SecretServiceStore()
        defer {
            _ = try? keyring.removeAll(matching: ItemQuery(service: service))
            RawLibsecret.clear(service: floorService)
        }
        try Measurement.withTemporaryFolder { folder in
            let vault = try Vault.create(at: folder.appendingPathComponent("bench.vault"), with: .key(.random(count: 32)))
            let secret = Data(repeating: 0x5A, count: secretLength)
            let ids = (0..<items).map { ItemID.genericPassword(service: service, account: "user\($0)@example.com") }
            let password = String(decoding: secret, as: UTF8.self)
            for id in ids {
                try keyring.set(secret, for: id)
                try vault.set(secret, for: id)
                try RawLibsecret.store(password, service: floorService, account: id.account)
            }
            var generator = SystemRandomNumberGenerator()
            let picks = (0..<(gets + sets + 20)).map { _ in Int.random(in: 0..<items, using: &generator) }

            let getMedians = try Measurement.interleavedMedians(count: gets, warmup: 20, [
                { index in guard try vault.secret(for: ids[picks[index]]) != nil else { throw CofferError.itemNotFound } },
                { index in guard try keyring.secret(for: ids[picks[index]]) != nil else { throw CofferError.itemNotFound } },
                { index in
                    guard try RawLibsecret.lookup(service: floorService, account: ids[picks[index]].account) else {
                        throw CofferError.itemNotFound
                    }
                },
            ])
            let setMedians = try Measurement.interleavedMedians(count: sets, warmup: 5, [
                { index in try vault.set(secret, for: ids[picks[index]]) },
                { index in try keyring.set(secret, for: ids[picks[index]]) },
                { index in try RawLibsecret.store(password, service: floorService, account: ids[picks[index]].account) },
            ])
            let (vaultGet, keyringGet, floorGet) = (getMedians[0], getMedians[1], getMedians[2])
            let (vaultSet, keyringSet, floorSet) = (setMedians[0], setMedians[1], setMedians[2])

            print("\(items) items of \(secretLength) bytes in each store; medians of \(gets) gets and \(sets) sets, interleaved.")
            print("The floor is libsecret's secret_password_lookupv_sync / storev_sync: no checks, no metadata.\n")
            print("| operation | vault | Secret Service | libsecret floor | Secret Service / vault | Secret Service / floor |")
            print("|---|---:|---:|---:|---:|---:|")
            for (name, vault, keyring, floor) in [("get", vaultGet, keyringGet, floorGet), ("set", vaultSet, keyringSet, floorSet)] {
                print("| \(name) | \(Measurement.format(vault)) | \(Measurement.format(keyring)) | \(Measurement.format(floor)) | \(Measurement.ratio(keyring, vault)) | \(Measurement.ratio(keyring, floor)) |")
            }
            print()
        }
    }
}
