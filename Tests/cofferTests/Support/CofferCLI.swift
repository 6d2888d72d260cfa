import AuthTestSupport
import Foundation

/// The built `coffer` executable, run as a separate process against a private vault.
struct CofferCLI {
    /// `coffer`, next to the test bundle.
    static let executable: String = {
        let bundleFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for folder in [bundleFolder, Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL] {
            let candidate = folder.appendingPathComponent("coffer").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return bundleFolder.appendingPathComponent("coffer").path
    }()

    /// The repository's root, for scripts.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    let folder: URL

    /// A private folder with a new vault opened by a key file.
    static func withNewVault() throws -> CofferCLI {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let cli = CofferCLI(folder: folder)
        let created = try cli.run(["init"])
        guard created.status == 0 else { throw CLIFailure(output: created) }
        return cli
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("COFFER_") }
        environment["COFFER_VAULT"] = folder.appendingPathComponent("test.vault").path
        environment["COFFER_KEYFILE"] = folder.appendingPathComponent("test.key").path
        return environment
    }

    /// Runs `coffer arguments…` with `stdin`, and `inputs` on other file descriptors.
    func run(_ arguments: [String], stdin: String = "", inputs: [Int32: Data?] = [:], timeout: Duration = .seconds(30)) throws -> ChildProcess.Output {
        var all = inputs
        all[0] = Data(stdin.utf8)
        return try ChildProcess.run(Self.executable, arguments, environment: environment, inputs: all, timeout: timeout)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    let output: ChildProcess.Output
    var description: String { "exit \(output.status): \(output.stderr)" }
}
