import CofferDevBackend
import CofferTestSupport
import Foundation
import XCTest

/// Another user who creates `/tmp/coffer-<uid>` first (one `mkdir`) stops neither the agent nor
/// a token refresh's lock: without $XDG_RUNTIME_DIR (su, sudo, cron, containers), Coffer's
/// run-time folder is `~/.local/state/coffer/run`, the user's own. Before, both failed with exit 77.
///
/// `coffer` runs as a uid of no account, made from this process's id, whose `/tmp` name is then
/// squatted by uid 65534: nobody else's folder is touched. Needs root, for both uids.
final class RuntimeFolderSquatTests: XCTestCase {
    let folder = TemporaryFolder()
    let uid = 3_000_000_000 + UInt32(getpid())
    var home: String { folder.file("home").path }
    var squatted: String { "/tmp/coffer-\(uid)" }

    override func setUpWithError() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root, to run coffer as one uid and squat its /tmp folder as another") }
        chmod(folder.url.path, 0o755)
        XCTAssertEqual(mkdir(home, 0o700), 0)
        XCTAssertEqual(chown(home, uid, uid), 0)
        rmdir(squatted)
        XCTAssertEqual(mkdir(squatted, 0o755), 0, "the squat: one mkdir, by another user")
        XCTAssertEqual(chown(squatted, 65534, 65534), 0)
        // The user runs copies in a folder it can enter: the build folder may sit in one that only
        // root can (a clone made in `mktemp -d`). coffer finds coffer-auth, coffer-agent and its
        // full program's library beside itself.
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        for name in ["coffer", "coffer-agent", "coffer-auth", "libCofferCommands.so"] {
            try FileManager.default.copyItem(atPath: BuiltProducts.executable(name).path, toPath: bin + "/" + name)
        }
    }

    private var bin: String { folder.file("bin").path }

    override func tearDown() {
        rmdir(squatted)
    }

    /// `coffer arguments…` as `uid`, with no $XDG_RUNTIME_DIR and its vault and key file at home.
    private func start(_ arguments: [String]) throws -> ChildProcess {
        var environment: [String: String?] = ["HOME": home, "COFFER_VAULT": home + "/test.vault", "COFFER_KEYFILE": home + "/test.key"]
        for name in ProcessInfo.processInfo.environment.keys where environment.index(forKey: name) == nil
            && (name.hasPrefix("XDG_") || name.hasPrefix("COFFER_") || name.hasSuffix("DISPLAY")) {
            environment.updateValue(nil, forKey: name)
        }
        return try ChildProcess.start(
            "/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", bin + "/coffer"] + arguments, environment: environment)
    }

    private func run(_ arguments: [String]) throws -> ChildProcess.Output {
        try start(arguments).wait(timeout: .seconds(60))
    }

    func testTheAgentStarts() throws {
        XCTAssertEqual(try run(["init"]).status, 0)
        let started = try run(["agent", "start"])
        XCTAssertEqual(started.status, 0, started.stderrText)
        defer { _ = try? run(["agent", "stop"]) }
        XCTAssertTrue(started.stdoutText.hasSuffix(" at \(home)/.local/state/coffer/run/agent.sock\n"), started.stdoutText)
        let unlocked = try run(["unlock"])
        XCTAssertEqual(unlocked.status, 0, unlocked.stderrText)
        XCTAssertEqual(try run(["get", "mail", "ada"]).exitStatus, .notFound, "served by the agent: no such item")
    }

    func testATokenRefreshTakesItsLock() async throws {
        let backend = try await DevBackend.start(DevBackend.Configuration(
            tokenLifetime: TimeInterval(4 * TestTiming.scale), logger: quietLogger,
            openID: OpenIDProviderConfiguration(deviceApprovalEndpoint: true, deviceInterval: 0)))
        do { try refresh(at: backend) } catch { await backend.stop(); throw error }
        await backend.stop()
    }

    /// A device login at `backend`, then a `token` once the access token is due for a refresh.
    private func refresh(at backend: DevBackend) throws {
        XCTAssertEqual(try run(["init"]).status, 0)
        let login = try start(["login", "--issuer", backend.issuer.absoluteString, "--client-id", "coffer-native", "--device"])
        let lines = try login.errorLines(3, timeout: .seconds(20))
        let user = DevBackend.Configuration.defaultUser.name
        XCTAssertTrue(backend.approveDeviceLogin(userCode: String(lines[1].dropFirst("user code: ".count)), as: user), lines[1])
        XCTAssertEqual(try login.wait(timeout: .seconds(30)).status, 0)

        usleep(useconds_t(2_500_000 * TestTiming.scale))  // the 4 s token is within its leeway (half its life) of expiry
        let token = try run(["token"])
        XCTAssertEqual(token.status, 0, token.stderrText)
        XCTAssertEqual(backend.statistics.refreshRequests, 1)
        let locks = try FileManager.default.contentsOfDirectory(atPath: home + "/.local/state/coffer/run/locks")
        XCTAssertEqual(locks.count, 1, "the refresh lock, in the user's own folder")
    }
}
