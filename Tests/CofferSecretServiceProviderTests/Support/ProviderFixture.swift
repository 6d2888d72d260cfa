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
    private let configuration: SecretServiceProvider.Configuration
    private let onInterruption: @Sendable (SecretServiceProvider.Interruption) -> Void
    private(set) var provider: SecretServiceProvider

    /// `prompter`: the `--prompter` command (`nil`: none), given `prompterTimeout` to answer.
    /// `unlocked`: whether the agent holds the login vault at start. `users`: who may connect to
    /// the bus. `beforeStart` runs once the login vault exists, before the provider starts (to lay
    /// out what it should find). `onInterruption`: told when the provider stops serving.
    /// `policy`: the login vault's access policy; `open` (every program reads every item, as
    /// before per-application access) for the tests of the protocol itself, where one program
    /// stores what another reads.
    init(
        prompter: String? = nil, prompterTimeout: Duration = .seconds(20), unlocked: Bool = true, policy: AccessPolicy = .open,
        users: PrivateBus.Users = PrivateBus.Users(), beforeStart: (ProviderFixture.Layout) throws -> Void = { _ in },
        onInterruption: @escaping @Sendable (SecretServiceProvider.Interruption) -> Void = { _ in }
    ) throws {
        bus = try PrivateBus(users: users)
        loginURL = folder.file("data/coffer/default.vault")
        login = try Vault.create(
            at: loginURL, with: .passphrase(Self.loginPassphrase),
            configuration: Vault.Configuration(passphraseCost: PassphraseCost(operations: 1, memoryBytes: 64 * 1024)))
        try login.setAccessPolicy(policy)
        try beforeStart(Layout(loginURL: loginURL, login: login))
        if unlocked { vaults.hold(login, at: CollectionRegistry.realPath(loginURL.path), for: 3600) }
        var configuration = SecretServiceProvider.Configuration(loginVault: loginURL, prompter: prompter.map { PrompterCommand(command: $0, timeout: prompterTimeout) })
        configuration.busAddress = bus.address
        self.configuration = configuration
        self.onInterruption = onInterruption
        provider = SecretServiceProvider(configuration: configuration, keeper: vaults, onInterruption: onInterruption)
        try provider.start()
    }

    /// What `beforeStart` is given: the login vault (unlocked) and where it is.
    struct Layout {
        let loginURL: URL
        let login: Vault
    }

    deinit {
        provider.stop()
    }

    /// Stops the provider and starts a new one on the same vaults and bus, as an agent restart
    /// would: it reads everything afresh.
    func restart() throws {
        provider.stop()
        provider = SecretServiceProvider(configuration: configuration, keeper: vaults, onInterruption: onInterruption)
        try provider.start()
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
    func run(
        _ executable: String, _ arguments: [String], stdin: Data = Data(), extraEnvironment: [String: String?] = [:],
        timeout: Duration = .seconds(60)
    ) throws -> ChildProcess.Output {
        guard executable.hasPrefix("/") || Self.which(executable) != nil else {
            throw MissingPrerequisite.error("\(executable) is not installed")
        }
        try FileManager.default.createDirectory(at: folder.file("home"), withIntermediateDirectories: true)
        return try ChildProcess.run(
            executable, arguments, environment: environment.merging(extraEnvironment) { $1 }, stdin: stdin, timeout: timeout)
    }

    /// Runs Debian's python3 (with its python3-secretstorage, python3-keyring and jeepney).
    func python(_ arguments: [String], stdin: Data = Data()) throws -> ChildProcess.Output {
        let output = try run("/usr/bin/python3", arguments, stdin: stdin)
        if output.stderrText.contains("ModuleNotFoundError") {
            throw MissingPrerequisite.error("a Python module is missing (scripts/bootstrap.sh test installs them): \(output.stderrText)")
        }
        return output
    }

    /// Locks the login collection (and the created ones with it), as `coffer lock` does: the
    /// agent forgets the vault.
    func lockLogin() {
        vaults.forget(CollectionRegistry.realPath(loginURL.path))
    }

    /// Runs Fixtures/libsecret_client.c (libsecret's own C calls), built on first use.
    func libsecret(_ arguments: [String]) throws -> ChildProcess.Output {
        let client = try CProgram.build(
            Self.fixtures.appendingPathComponent("libsecret_client.c"), named: "libsecret-client", packages: ["libsecret-1"])
        return try run(client.path, arguments)
    }

    static func which(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
