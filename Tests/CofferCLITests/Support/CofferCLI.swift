import CofferTestSupport
import Foundation

/// The built `coffer` executable, run as a separate process against a private vault.
struct CofferCLI {
    /// `coffer`, next to the test bundle.
    static let executable = BuiltProducts.executable("coffer").path

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

    /// No COFFER_ variable of this process, and this vault and key file.
    var environment: [String: String?] {
        var environment: [String: String?] = [:]
        for name in ProcessInfo.processInfo.environment.keys where name.hasPrefix("COFFER_") {
            environment.updateValue(nil, forKey: name)
        }
        environment["COFFER_VAULT"] = folder.appendingPathComponent("test.vault").path
        environment["COFFER_KEYFILE"] = folder.appendingPathComponent("test.key").path
        // Lock files and the agent's socket in this test's own private folder; no display, so
        // a login defaults to the device flow and never opens a browser.
        environment["XDG_RUNTIME_DIR"] = folder.path
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        return environment
    }

    /// Runs `coffer arguments…` with `stdin`, and `inputs` on other file descriptors.
    func run(_ arguments: [String], stdin: String = "", inputs: [Int32: Data?] = [:], timeout: Duration = .seconds(30)) throws -> ChildProcess.Output {
        try ChildProcess.run(Self.executable, arguments, environment: environment, stdin: Data(stdin.utf8), inputs: inputs, timeout: timeout)
    }

    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    let output: ChildProcess.Output
    var description: String { "exit \(output.status): \(output.stderrText)" }
}
