import Foundation

// coffer-bench SUITE: prints a Markdown table per suite. Run it in release mode:
//   swift run -c release coffer-bench vault
let suites: [String: () async throws -> Void] = [
    "vault": VaultBenchmark.run,
    "audit": AuditBenchmark.run,
    "secret-service": SecretServiceBenchmark.run,
    "secret-service-provider": SecretServiceProviderBenchmark.run,
    "auth": AuthBenchmark.run,
    "identity": IdentityBenchmark.run,
    "secret-service-access": SecretServiceAccessBenchmark.run,
    "keychain": KeychainBenchmark.run,
    "dispatch": DispatchBenchmark.run,
]

let requested = CommandLine.arguments.dropFirst().first ?? "all"
// The client processes `secret-service-provider` drives; not a suite of its own.
if requested == "secret-service-client" {
    SecretServiceClient.run()
    exit(0)
}
// The servers `dispatch` starts; not a suite of its own.
if requested == "dispatch-server", CommandLine.arguments.count == 4 {
    DispatchServer.run(mode: CommandLine.arguments[2], address: CommandLine.arguments[3])
}
// The floor's server that `keychain` starts; not a suite of its own.
if requested == "round-trip-server", CommandLine.arguments.count == 3 {
    RoundTripFloor.serve(path: CommandLine.arguments[2])
}
let names = requested == "all" ? suites.keys.sorted() : [requested]
for name in names {
    guard let suite = suites[name] else {
        FileHandle.standardError.write(Data("usage: coffer-bench [all|\(suites.keys.sorted().joined(separator: "|"))]\n".utf8))
        exit(64)
    }
    do {
        try await suite()
    } catch {
        FileHandle.standardError.write(Data("coffer-bench \(name): \(error)\n".utf8))
        exit(1)
    }
}
