import Coffer
import CofferAgent
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// A provider serving on a private bus: a real `dbus-daemon`, a real vault file as the login
/// collection (held unlocked by the agent's own ``HeldVaults``, as `coffer unlock` would), and
/// the provider in this process. Clients run as real processes on the bus.
final class ProviderFixture {
    static let loginPassphrase = "login passphrase for tests"
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    let bus: PrivateBus
    let folder = TemporaryFolder()
    let vaults = HeldVaults(idleTimeout: 3600)
    let loginURL: URL
    let login: Vault
    let provider: SecretServiceProvider

    /// `prompter`: the `--prompter` command (`nil`: none), given `prompterTimeout` to answer.
    /// `unlocked`: whether the agent holds the login vault at start.
    init(prompter: String? = nil, prompterTimeout: Duration = .seconds(20), unlocked: Bool = true) throws {
        bus = try PrivateBus()
        loginURL = folder.file("data/coffer/default.vault")
        login = try Vault.create(
            at: loginURL, with: .passphrase(Self.loginPassphrase),
            configuration: Vault.Configuration(passphraseCost: PassphraseCost(operations: 1, memoryBytes: 64 * 1024)))
        if unlocked { vaults.hold(login, at: CollectionRegistry.realPath(loginURL.path), for: 3600) }
        var configuration = SecretServiceProvider.Configuration(loginVault: loginURL, prompter: prompter.map { PrompterCommand(command: $0, timeout: prompterTimeout) })
        configuration.busAddress = bus.address
        provider = SecretServiceProvider(configuration: configuration, keeper: vaults)
        try provider.start()
    }

    deinit {
        provider.stop()
    }

    /// The environment of a client: the private bus, a home of its own, no display.
    var environment: [String: String?] {
        var environment = bus.clientEnvironment
        environment["HOME"] = folder.file("home").path
        environment["XDG_CONFIG_HOME"] = folder.file("home/.config").path
        environment["XDG_DATA_HOME"] = folder.file("home/.local/share").path
        return environment
    }

    /// Runs a client program on the bus.
    func run(_ executable: String, _ arguments: [String], stdin: Data = Data(), extraEnvironment: [String: String?] = [:]) throws -> ChildProcess.Output {
        guard executable.hasPrefix("/") || Self.which(executable) != nil else {
            throw MissingPrerequisite.error("\(executable) is not installed")
        }
        try FileManager.default.createDirectory(at: folder.file("home"), withIntermediateDirectories: true)
        return try ChildProcess.run(
            executable, arguments, environment: environment.merging(extraEnvironment) { $1 }, stdin: stdin, timeout: .seconds(60))
    }

    /// Runs Debian's python3 (with its python3-secretstorage, python3-keyring and jeepney).
    func python(_ arguments: [String], stdin: Data = Data()) throws -> ChildProcess.Output {
        let output = try run("/usr/bin/python3", arguments, stdin: stdin)
        if output.stderrText.contains("ModuleNotFoundError") {
            throw MissingPrerequisite.error("a Python module is missing (scripts/bootstrap.sh test installs them): \(output.stderrText)")
        }
        return output
    }

    static func which(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
