import Coffer
import Foundation
import XCTest

/// The Secret Service the tests run against: gnome-keyring on a private session bus, started
/// by `scripts/with-secret-service.sh` (which `make test` and CI use).
public enum SecretServiceTestEnvironment {
    /// Whether this run must have a Secret Service: set by scripts/with-secret-service.sh.
    public static var isRequired: Bool {
        ProcessInfo.processInfo.environment["COFFER_REQUIRE_SECRET_SERVICE"] == "1"
    }

    /// Returns when the Secret Service is available. Otherwise fails the test when the run
    /// requires a service, or skips it, saying why, when it does not.
    public static func requireAvailable() throws {
        let status: String
        do {
            let found = try SecretService.status()
            guard found != .available else { return }
            status = "the Secret Service is unusable here (\(found))"
        } catch {
            status = "the Secret Service did not answer (\(error))"
        }
        let advice = "run the tests under `dbus-run-session -- scripts/with-secret-service.sh swift test` (make test does)"
        if isRequired { throw MissingSecretService(message: "\(status), but COFFER_REQUIRE_SECRET_SERVICE=1") }
        throw XCTSkip("\(status); \(advice)")
    }

    /// Runs `secret-tool` on the test bus.
    public static func secretTool(_ arguments: [String], stdin: Data = Data()) throws -> ChildProcess.Output {
        try ChildProcess.run("secret-tool", arguments, stdin: stdin, timeout: .seconds(20))
    }

    /// Environment changes (for ``ChildProcess``) that leave a child without any session bus:
    /// no address and an empty runtime folder, so neither D-Bus nor GDBus can find one.
    public static func environmentWithoutSessionBus(runtimeFolder: URL) -> [String: String?] {
        ["DBUS_SESSION_BUS_ADDRESS": nil, "XDG_RUNTIME_DIR": runtimeFolder.path, "COFFER_REQUIRE_SECRET_SERVICE": nil]
    }

    /// A failure: the run requires a Secret Service and there is none.
    public struct MissingSecretService: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }

        public init(message: String) { self.message = message }
    }
}
