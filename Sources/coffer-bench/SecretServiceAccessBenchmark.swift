import Coffer
import Foundation

/// `coffer-bench secret-service-access`: what per-application access costs a libsecret lookup
/// (`secret_service_lookup_sync`: SearchItems, then GetSecrets). Two agents, each on a private
/// bus of its own with its own vault of ``items`` items that coffer-bench owns: one vault under
/// `confirm`, where the owner reads silently, one under `open`. One libsecret client process
/// (coffer-bench, the owner) per agent; the two take turns call after call, the order swapped
/// every round. Both agents log every read in their vault's audit log (`owner`, `open`).
/// Then the agent's own `get` (the `secret` request on its socket, one connection per request,
/// as a process without a kept connection sends it) from coffer-bench, the owner, to each agent
/// in turn.
enum SecretServiceAccessBenchmark {
    static let items = 100
    static let lookups = 1000
    static let warmup = 50

    static func run() throws {
        print("## coffer-bench secret-service-access\n")
        let bin = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let coffer = bin.appendingPathComponent("coffer"), bench = bin.appendingPathComponent("coffer-bench")
        for tool in ["/usr/bin/dbus-daemon", coffer.path] where !FileManager.default.isExecutableFile(atPath: tool) {
            print("skipped: \(tool) is missing (build coffer beside coffer-bench: swift build -c release --product coffer)\n")
            return
        }
        let (confirm, open, agentGets) = try Measurement.withTemporaryFolder { folder in
            let confirm = try BenchAgent(items: items, in: folder.appendingPathComponent("confirm"), coffer: coffer, policy: .confirm)
            defer { confirm.stop() }
            let open = try BenchAgent(items: items, in: folder.appendingPathComponent("open"), coffer: coffer, policy: .open)
            defer { open.stop() }
            let clients = try [confirm, open].map { agent in try BenchClient(bench, environment: agent.environment) }
            defer { clients.forEach { $0.stop() } }
            for client in clients { try client.ask("ready \(items - 1)", retryingFor: .seconds(60)) }
            var samples: [[Double]] = [[], []]
            var generator = SystemRandomNumberGenerator()
            for round in 0..<(warmup + lookups) {
                let pick = Int.random(in: 0..<items, using: &generator)
                for slot in round.isMultiple(of: 2) ? [0, 1] : [1, 0] {
                    let microseconds = try clients[slot].ask("lookup \(pick)")
                    if round >= warmup { samples[slot].append(microseconds) }
                }
            }
            let gets: [(Int) throws -> Void] = [confirm, open].map { agent in
                let client = AgentClient(path: agent.environment["COFFER_AGENT_SOCKET"] ?? "", timeout: .seconds(10))
                // The agent holds a vault by its real path, as `coffer unlock` names it.
                let vault = URL(fileURLWithPath: agent.environment["COFFER_VAULT"] ?? "").resolvingSymlinksInPath().path
                return { (round: Int) throws in
                    let id = ItemID.genericPassword(service: "bench", account: "user\(round % items)")
                    guard case .secret(.some) = try client.send(.secret(vault: vault, id: id)) else {
                        throw CofferError.storageUnavailable(reason: "the agent did not answer the secret")
                    }
                }
            }
            let agentGets = try Measurement.interleavedMedians(count: lookups, warmup: warmup, gets)
            return (Measurement.median(samples[0]), Measurement.median(samples[1]), agentGets)
        }
        print("libsecret's secret_service_lookup_sync from one client process per agent, each agent on a private bus of its")
        print("own, the clients taking turns; medians of \(lookups) lookups of \(items) items the client's program owns.\n")
        print("| policy | lookup | / open |")
        print("|---|---:|---:|")
        print("| open | \(Measurement.format(open)) | |")
        print("| confirm (the owner reads) | \(Measurement.format(confirm)) | \(Measurement.ratio(confirm, open)) |")
        print("| agent `get`, open | \(Measurement.format(agentGets[1])) | |")
        print("| agent `get`, confirm (the owner reads) | \(Measurement.format(agentGets[0])) | \(Measurement.ratio(agentGets[0], agentGets[1])) |")
        print("\nTargets: confirm ≤ 1.05× open (lookup \(Measurement.ratio(confirm, open)), agent get \(Measurement.ratio(agentGets[0], agentGets[1])))\n")
    }
}
