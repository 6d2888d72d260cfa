@_spi(Benchmarks) import Coffer
import CofferAgent
import Foundation

/// `coffer-bench keychain`: what `Keychain(service:)` costs an app per read. In one run,
/// interleaved: a `get` from the login keychain (this process's kept connection to a
/// `coffer agent` holding a vault of ``items`` items this process owns), the same `get` from a
/// vault of the same items opened in this process, and a libsecret lookup (`secret_password_lookupv_sync`)
/// from the Secret Service on this process's session bus, holding as many items; and the agent's
/// round trip alone (a `holds` request on the same connection); and the floor under that round
/// trip: the same request and reply between this process and one that does nothing else
/// (``RoundTripFloor``); and the agent's own work for the `get` and the `holds`, done in this
/// process with no socket (its request handler on a third vault of the same items, for this process as the caller).
/// Then the agent's `get` and `holds`, the floor and the agent's work again, each back to back
/// (its requests in a row, nothing between them): what a client asking in a loop sees.
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
            let handlerURL = folder.appendingPathComponent("handler.vault")
            try SecureBytes.random(count: 32).withUnsafeBytes { try Data($0).write(to: keyFile) }
            chmod(keyFile.path, 0o600)
            let ids = (0..<items).map { ItemID.genericPassword(service: service, account: "user\($0)@example.com") }
            // Three vaults of the same items: the agent's, the one this process reads itself, and
            // the one its request handler works on. Each is written by one process only, so no
            // audit append of one makes another reload its pages.
            let vaults = try ["login", "local", "handler"].map { name in
                let vault = try Vault.create(at: folder.appendingPathComponent("\(name).vault"), with: .keyFile(keyFile))
                try vault.set(ids.map { (id: $0, secret: Data("secret of \($0.account)".utf8), options: ItemOptions()) })
                return vault
            }
            let (localVault, handlerVault) = (vaults[1], vaults[2])
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
            let handler = AgentRequestHandler(vaults: HeldVaults(idleTimeout: 3600))
            let path = handlerURL.resolvingSymlinksInPath().path
            handler.vaults.hold(handlerVault, at: path, for: nil)
            let caller = try CallerResolver().resolve(pid: getpid(), uid: geteuid())
            let store = try LoginKeychain.store(environment: agentEnvironment)
            let keychain = Keychain(service: service, store: store)
            let local = Keychain(service: service, store: localVault)
            var generator = SystemRandomNumberGenerator()
            let picks = (0..<(gets + warmup)).map { _ in Int.random(in: 0..<items, using: &generator) }
            let agentGet: (Int) throws -> Void = { round in
                guard try keychain.data(for: ids[picks[round]].account) != nil else { throw CofferError.itemNotFound }
            }
            // The agent's round trip: a `holds` over the same kept connection reads no item and logs nothing.
            let agentHolds: (Int) throws -> Void = { _ in
                guard case .done = try store.client.send(.holds(vault: store.vault)) else { throw CofferError.locked }
            }
            let floorRoundTrip: (Int) throws -> Void = { _ in try floor.roundTrip() }
            let getWork: (Int) throws -> Void = { round in
                guard case .secret(.some) = handler.handle(.secret(vault: path, id: ids[picks[round]]), from: caller) else { throw CofferError.itemNotFound }
            }
            let interleaved = try Measurement.interleavedMedians(count: gets, warmup: warmup, [
                agentGet,
                { round in guard try local.data(for: ids[picks[round]].account) != nil else { throw CofferError.itemNotFound } },
                { round in guard try RawLibsecret.lookup(service: service, account: ids[picks[round]].account) else { throw CofferError.itemNotFound } },
                agentHolds,
                floorRoundTrip,
                getWork,
                { _ in guard case .done = handler.handle(.holds(vault: path), from: caller) else { throw CofferError.locked } },
            ])
            let backToBack = try [agentGet, agentHolds, floorRoundTrip, getWork].map { operation in
                try Measurement.interleavedMedians(count: gets, warmup: warmup, [operation])[0]
            }
            return (interleaved, backToBack)
        }
        let (agent, local, libsecret, roundTrip, floor) = (medians.0[0], medians.0[1], medians.0[2], medians.0[3], medians.0[4])
        let (getWork, holdsWork) = (medians.0[5], medians.0[6])
        print("A `get` of one of \(items) items, medians of \(gets), all seven interleaved; the login keychain's agent logs each")
        print("read in the vault's audit log (the owner reads).\n")
        print("| read | median | / in-process vault | / libsecret lookup |")
        print("|---|---:|---:|---:|")
        print("| `Keychain(service:)` through the agent | \(Measurement.format(agent)) | \(Measurement.ratio(agent, local)) | \(Measurement.ratio(agent, libsecret)) |")
        print("| the vault opened in process | \(Measurement.format(local)) | | \(Measurement.ratio(local, libsecret)) |")
        print("| libsecret lookup (`secret_password_lookupv_sync`) | \(Measurement.format(libsecret)) | | |")
        print("| the agent's round trip alone (`holds`: no item read, nothing logged) | \(Measurement.format(roundTrip)) | | \(Measurement.ratio(roundTrip, libsecret)) |")
        print("| the floor: the same request and reply with a process that does nothing else | \(Measurement.format(floor)) | | \(Measurement.ratio(floor, libsecret)) |")
        print("| the agent's work for the `get`, in process (no socket: the read, the access decision, the audit entry) | \(Measurement.format(getWork)) | | |")
        print("| the agent's work for the `holds`, in process (no socket) | \(Measurement.format(holdsWork)) | | |")
        print("\nThe same, back to back: \(gets) of one kind in a row, nothing between them.\n")
        print("| back to back | median |\n|---|---:|")
        let backToBackRows = [
            "`Keychain(service:)` through the agent", "the agent's round trip alone (`holds`)",
            "the floor: the same round trip with a process that does nothing else", "the agent's work for the `get`, in process",
        ]
        for (row, median) in zip(backToBackRows, medians.1) { print("| \(row) | \(Measurement.format(median)) |") }
        let met = agent <= 50 && agent < libsecret / 2
        if let parts = try? partsOfTheGet() { print(parts) }
        print("\nTargets: ≤ 50 µs and < 0.5× a libsecret lookup: \(met ? "met" : "missed") (\(Measurement.format(agent)), \(Measurement.ratio(agent, libsecret)))\n")
    }

    /// The agent's work for one `get`, step by step, on a vault of ``items`` items in this
    /// process: the steps the access gate takes, each timed alone, interleaved.
    static func partsOfTheGet() throws -> String {
        try Measurement.withTemporaryFolder { folder in
            let keyFile = folder.appendingPathComponent("key")
            try SecureBytes.random(count: 32).withUnsafeBytes { try Data($0).write(to: keyFile) }
            chmod(keyFile.path, 0o600)
            let ids = (0..<items).map { ItemID.genericPassword(service: service, account: "user\($0)@example.com") }
            let vault = try Vault.create(at: folder.appendingPathComponent("parts.vault"), with: .keyFile(keyFile))
            try vault.set(ids.map { (id: $0, secret: Data("secret of \($0.account)".utf8), options: ItemOptions()) })
            let entry = AuditEntry(time: Date(), program: Program.current(), frontDoor: .agent, action: .read, item: ids[0], decision: .owner)
            var generator = SystemRandomNumberGenerator()
            let picks = (0..<(gets + warmup)).map { _ in Int.random(in: 0..<items, using: &generator) }
            let medians = try Measurement.interleavedMedians(count: gets, warmup: warmup, [
                { round in _ = try vault.secret(for: ids[picks[round]]) },
                { round in _ = try vault.itemWithAccess(for: ids[picks[round]]) },
                { _ in _ = try vault.accessPolicy() },
                { _ in try vault.appendAudit(entry) },
            ])
            let rows = ["the item's secret (`Vault.secret(for:)`)", "the item with its owner and access list (`itemWithAccess`)", "the vault's access policy", "the audit entry (`appendAudit`)"]
            return "The agent's work for a `get`, step by step, in this process (medians of \(gets), interleaved):\n\n| step | median |\n|---|---:|\n"
                + zip(rows, medians).map { "| \($0) | \(Measurement.format($1)) |" }.joined(separator: "\n") + "\n"
        }
    }
}
