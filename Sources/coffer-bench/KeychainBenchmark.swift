@_spi(Benchmarks) import Coffer
import Foundation

/// `coffer-bench keychain`: what `Keychain(service:)` costs an app per read. In one run,
/// interleaved: a `get` from the login keychain (this process's kept connection to a
/// `coffer agent` holding a vault of ``items`` items this process owns), the same `get` from the
/// same vault opened in this process, and a libsecret lookup (`secret_password_lookupv_sync`)
/// from the Secret Service on this process's session bus, holding as many items; and the agent's
/// round trip alone (a `holds` request on the same connection); and the floor under that round
/// trip: the same request and reply between this process and one that does nothing else
/// (``RoundTripFloor``).
///
/// The libsecret part writes to the default collection of the Secret Service it finds, so the
/// suite runs only on the private keyring of scripts/with-secret-service.sh (`make bench`), or
/// on yours when COFFER_BENCH_SECRET_SERVICE=1 says so; its items are removed afterwards.
enum KeychainBenchmark {
    static let items = 100
    static let gets = 2000
    static let warmup = 100
    static let service = "coffer-bench.keychain"

    static func run() throws {
        print("## coffer-bench keychain\n")
        let environment = ProcessInfo.processInfo.environment
        let bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let coffer = bin.appendingPathComponent("coffer")
        guard FileManager.default.isExecutableFile(atPath: coffer.path) else {
            print("skipped: \(coffer.path) is missing (build coffer beside coffer-bench: swift build -c release --product coffer)\n")
            return
        }
        guard environment["COFFER_REQUIRE_SECRET_SERVICE"] == "1" || environment["COFFER_BENCH_SECRET_SERVICE"] == "1" else {
            print("skipped: run it on a private keyring (`make bench`), or set COFFER_BENCH_SECRET_SERVICE=1 to use yours\n")
            return
        }
        defer { RawLibsecret.clear(service: service) }
        let medians = try Measurement.withTemporaryFolder { folder in
            let vaultURL = folder.appendingPathComponent("login.vault"), keyFile = folder.appendingPathComponent("key")
            try SecureBytes.random(count: 32).withUnsafeBytes { try Data($0).write(to: keyFile) }
            chmod(keyFile.path, 0o600)
            let ids = (0..<items).map { ItemID.genericPassword(service: service, account: "user\($0)@example.com") }
            let vault = try Vault.create(at: vaultURL, with: .keyFile(keyFile))
            try vault.set(ids.map { (id: $0, secret: Data("secret of \($0.account)".utf8), options: ItemOptions()) })
            for id in ids { try RawLibsecret.store("secret of \(id.account)", service: service, account: id.account) }

            let socket = folder.appendingPathComponent("agent.sock").path
            var agentEnvironment = environment
            agentEnvironment["COFFER_AGENT_SOCKET"] = socket
            agentEnvironment["COFFER_VAULT"] = vaultURL.path
            agentEnvironment["COFFER_KEYFILE"] = keyFile.path
            let agent = try BenchProcess.start(coffer.path, ["agent", "start", "--foreground"], environment: agentEnvironment)
            defer { agent.stop() }
            try SecretServiceProviderBenchmark.retry(for: .seconds(30)) {
                try BenchProcess.run(coffer.path, ["unlock", "--for", "1h"], environment: agentEnvironment)
            }
            let floor = try RoundTripFloor.Client(
                bench: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path, path: folder.appendingPathComponent("floor.sock").path,
                vault: vaultURL.path)
            let store = try LoginKeychain.store(environment: agentEnvironment)
            let keychain = Keychain(service: service, store: store)
            let local = Keychain(service: service, store: vault)
            var generator = SystemRandomNumberGenerator()
            let picks = (0..<(gets + warmup)).map { _ in Int.random(in: 0..<items, using: &generator) }
            return try Measurement.interleavedMedians(count: gets, warmup: warmup, [
                { round in guard try keychain.data(for: ids[picks[round]].account) != nil else { throw CofferError.itemNotFound } },
                { round in guard try local.data(for: ids[picks[round]].account) != nil else { throw CofferError.itemNotFound } },
                { round in guard try RawLibsecret.lookup(service: service, account: ids[picks[round]].account) else { throw CofferError.itemNotFound } },
                // The agent's round trip: a `holds` over the same kept connection reads no item and logs nothing.
                { _ in guard case .done = try store.client.send(.holds(vault: store.vault)) else { throw CofferError.locked } },
                { _ in try floor.roundTrip() },
            ])
        }
        let (agent, local, libsecret, roundTrip, floor) = (medians[0], medians[1], medians[2], medians[3], medians[4])
        print("A `get` of one of \(items) items, medians of \(gets), all five interleaved; the login keychain's agent logs each")
        print("read in the vault's audit log (the owner reads).\n")
        print("| read | median | / in-process vault | / libsecret lookup |")
        print("|---|---:|---:|---:|")
        print("| `Keychain(service:)` through the agent | \(Measurement.format(agent)) | \(Measurement.ratio(agent, local)) | \(Measurement.ratio(agent, libsecret)) |")
        print("| the vault opened in process | \(Measurement.format(local)) | | \(Measurement.ratio(local, libsecret)) |")
        print("| libsecret lookup (`secret_password_lookupv_sync`) | \(Measurement.format(libsecret)) | | |")
        print("| the agent's round trip alone (`holds`: no item read, nothing logged) | \(Measurement.format(roundTrip)) | | \(Measurement.ratio(roundTrip, libsecret)) |")
        print("| the floor: the same request and reply with a process that does nothing else | \(Measurement.format(floor)) | | \(Measurement.ratio(floor, libsecret)) |")
        let met = agent <= 50 && agent < libsecret / 2
        print("\nTargets: ≤ 50 µs and < 0.5× a libsecret lookup: \(met ? "met" : "missed") (\(Measurement.format(agent)), \(Measurement.ratio(agent, libsecret)))\n")
    }
}
