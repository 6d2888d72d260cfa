@_spi(Benchmarks) import Coffer
import Foundation

/// `coffer agent start --foreground --secret-service` on a private bus of its own, serving a
/// vault in `folder` filled with `items` generic passwords (service `bench`, username `userN`)
/// in one transaction by this process (so coffer-bench owns them), then held by the agent
/// (`coffer unlock` with a key file).
final class BenchAgent {
    /// The environment of the agent, and of a client on its bus.
    let environment: [String: String]
    let process: BenchProcess
    private let bus: PrivateBusDaemon

    /// `policy`: the vault's access policy; `nil` keeps a new vault's.
    init(items: Int, in folder: URL, coffer: URL, policy: AccessPolicy? = nil) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        bus = try PrivateBusDaemon(folder: folder)
        let vaultURL = folder.appendingPathComponent("bench.vault"), keyFile = folder.appendingPathComponent("key")
        try SecureBytes.random(count: 32).withUnsafeBytes { try Data($0).write(to: keyFile) }
        chmod(keyFile.path, 0o600)
        let vault = try Vault.create(at: vaultURL, with: .keyFile(keyFile))
        if let policy { try vault.setAccessPolicy(policy) }
        try vault.set((0..<items).map { (id: .genericPassword(service: "bench", account: "user\($0)"), secret: Data("secret \($0)".utf8), options: ItemOptions()) })
        vault.lock()
        var environment = ProcessInfo.processInfo.environment
        environment["COFFER_VAULT"] = vaultURL.path
        environment["COFFER_KEYFILE"] = keyFile.path
        environment["COFFER_AGENT_SOCKET"] = folder.appendingPathComponent("agent.sock").path
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        self.environment = environment
        process = try BenchProcess.start(coffer.path, ["agent", "start", "--foreground", "--secret-service"], environment: environment)
        try SecretServiceProviderBenchmark.retry(for: .seconds(30)) {
            try BenchProcess.run(coffer.path, ["unlock", "--for", "1h"], environment: environment)
        }
    }

    func stop() {
        process.stop()
        bus.stop()
    }
}
