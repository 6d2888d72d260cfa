import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// `coffer` where the Secret Service is absent, frozen or locked, each on a bus of its own:
/// a fast, typed failure every time, never a hang, a prompt or a silent fallback.
final class SecretServiceUnavailableCLITests: XCTestCase {
    private var folder: URL!
    /// Well under the 5 s default timeout: these failures must not wait for it.
    private let fast: Duration = .seconds(2)

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-ss-down-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    private var coffer: URL { BuiltProducts.executable("coffer") }

    private func run(_ arguments: [String], environment: [String: String?]) throws -> ChildProcess.Output {
        try ChildProcess.run(coffer, arguments, environment: environment, timeout: .seconds(30))
    }

    /// Fails (when the run requires a Secret Service) or skips, saying why, when a tool is missing.
    private func requireTools(_ tools: [String]) throws {
        for tool in tools where try ChildProcess.run("which", [tool]).status != 0 {
            let message = "\(tool) is not installed (scripts/bootstrap.sh test installs it)"
            if SecretServiceTestEnvironment.isRequired { throw SecretServiceTestEnvironment.MissingSecretService(message: message) }
            throw XCTSkip(message)
        }
    }

    /// Runs `script` under a bus of its own, with gnome-keyring started by scripts/with-secret-service.sh
    /// when `keyring` is set. `$COFFER` names the coffer program.
    private func onPrivateBus(keyring: Bool = true, _ script: String) throws -> ChildProcess.Output {
        try requireTools(["dbus-run-session", "dbus-send"] + (keyring ? ["gnome-keyring-daemon"] : []))
        let environment: [String: String?] = ["COFFER": coffer.path]
        let wrapper = packageRoot.appendingPathComponent("scripts/with-secret-service.sh").path
        let command = (keyring ? [wrapper] : []) + ["bash", "-c", script]
        return try ChildProcess.run("dbus-run-session", ["--"] + command, environment: environment, timeout: .seconds(60))
    }

    /// With no session bus at all, the Secret Service backend fails at once with exit 69, and doctor says "no session bus".
    func testNoSessionBusFailsFast() throws {
        let environment = SecretServiceTestEnvironment.environmentWithoutSessionBus(runtimeFolder: folder)
        let get = try run(["--backend", "secret-service", "get", "s", "a"], environment: environment)
        XCTAssertEqual(get.exitStatus, .unavailable, get.stderrText)
        XCTAssertTrue(get.stderrText.hasPrefix("coffer: Secret Service unavailable: no D-Bus session bus"), get.stderrText)
        XCTAssertLessThan(get.duration, fast)
        XCTAssertTrue(try run(["doctor"], environment: environment).stdoutText.contains("secret service: no session bus\n"))
    }

    /// With a session bus address that leads nowhere, the failure is as fast and as typed.
    func testDeadBusSocketFailsFast() throws {
        var environment = SecretServiceTestEnvironment.environmentWithoutSessionBus(runtimeFolder: folder)
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(folder.appendingPathComponent("dead-socket").path)"
        let set = try run(["--backend", "secret-service", "set", "s", "a"], environment: environment)
        XCTAssertEqual(set.exitStatus, .unavailable, set.stderrText)
        XCTAssertTrue(set.stderrText.contains("no D-Bus session bus"), set.stderrText)
        XCTAssertLessThan(set.duration, fast)
    }

    /// On a bus with no daemon, the failure is fast and typed, and nothing starts one by D-Bus activation.
    func testNoDaemonFailsFastWithoutActivation() throws {
        let result = try onPrivateBus(keyring: false, """
            start=$(date +%s%N)
            "$COFFER" --backend secret-service get s a; echo "status=$?"
            echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            "$COFFER" doctor | grep '^secret service'
            dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep boolean
            """)
        XCTAssertTrue(result.stdoutText.contains("status=\(ExitStatus.unavailable.rawValue)\n"), result.stdoutText + result.stderrText)
        XCTAssertTrue(result.stderrText.contains("coffer: Secret Service unavailable: no Secret Service daemon"), result.stderrText)
        XCTAssertTrue(result.stdoutText.contains("secret service: no daemon\n"), result.stdoutText)
        XCTAssertTrue(result.stdoutText.contains("boolean false"), "no daemon was activated: \(result.stdoutText)")
        let milliseconds = try XCTUnwrap(result.stdoutText.split(separator: "\n").first { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) })
        XCTAssertLessThan(milliseconds, 2000)
    }

    /// A daemon that stops answering (SIGSTOP) makes calls and the status check fail with the timeout error (75) once the configured timeout is up.
    func testFrozenDaemonTimesOut() throws {
        let result = try onPrivateBus("""
            pid=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets | awk '/uint32/ {print $2}')
            trap 'kill -CONT $pid; kill $pid' EXIT
            printf x | "$COFFER" --backend secret-service set s a || exit 9
            kill -STOP $pid
            start=$(date +%s%N)
            "$COFFER" --backend secret-service --secret-service-timeout 1 get s a; echo "status=$?"
            echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            "$COFFER" --secret-service-timeout 1 doctor | grep '^secret service'
            """)
        XCTAssertTrue(result.stdoutText.contains("status=\(ExitStatus.timedOut.rawValue)\n"), result.stdoutText + result.stderrText)
        XCTAssertTrue(result.stdoutText.contains("secret service: unusable (the Secret Service did not answer in time)\n"),
                      "status() times out too: \(result.stdoutText)")
        XCTAssertTrue(result.stderrText.contains("coffer: the Secret Service did not answer in time"), result.stderrText)
        let milliseconds = try XCTUnwrap(result.stdoutText.split(separator: "\n").first { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) })
        XCTAssertGreaterThanOrEqual(milliseconds, 900, "it waited for the timeout")
        XCTAssertLessThan(milliseconds, TestTiming.limit(milliseconds: 3000), "and not much longer")
    }

    /// A locked collection reads and writes as locked (exit 2) at once: never as absent, and with no unlock prompt.
    func testLockedCollectionIsLockedNotAbsent() throws {
        let result = try onPrivateBus("""
            printf x | "$COFFER" --backend secret-service set s a || exit 9
            collection=$(dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
                org.freedesktop.Secret.Service.ReadAlias string:default | awk '/object path/ {print $3}' | tr -d '"')
            dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
                org.freedesktop.Secret.Service.Lock array:objpath:$collection >/dev/null
            start=$(date +%s%N)
            "$COFFER" --backend secret-service get s a; echo "get=$?"
            printf y | "$COFFER" --backend secret-service set s b; echo "set=$?"
            "$COFFER" --backend secret-service list; echo "list=$?"
            echo "ms=$(( ($(date +%s%N) - start) / 1000000 ))"
            "$COFFER" doctor | grep '^secret service'
            """)
        for expected in ["get=2\n", "set=2\n", "list=2\n", "secret service: locked\n"] {
            XCTAssertTrue(result.stdoutText.contains(expected), "expected \(expected): \(result.stdoutText) \(result.stderrText)")
        }
        XCTAssertEqual(result.stderrText.components(separatedBy: "coffer: the store is locked").count - 1, 3, result.stderrText)
        let milliseconds = try XCTUnwrap(result.stdoutText.split(separator: "\n").first { $0.hasPrefix("ms=") }.flatMap { Int($0.dropFirst(3)) })
        XCTAssertLessThan(milliseconds, TestTiming.limit(milliseconds: 3000), "three commands, none waiting on a prompt")
    }
}
