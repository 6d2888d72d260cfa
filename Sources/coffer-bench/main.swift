import Foundation

// coffer-bench SUITE: prints a Markdown table per suite. Run it in release mode:
//   swift run -c release coffer-bench vault
let suites: [String: () async throws -> Void] = [
    "vault": VaultBenchmark.run,
    "secret-service": SecretServiceBenchmark.run,
    "auth": AuthBenchmark.run,
]

let requested = CommandLine.arguments.dropFirst().first ?? "all"
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
