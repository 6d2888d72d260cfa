import Foundation
import Glibc

/// gnome-keyring-daemon on a private bus, unlocked, as scripts/with-secret-service.sh starts it:
/// the reference the provider's answers are compared with. It exits when the bus goes away.
public enum GnomeKeyring {
    public static let daemon = "/usr/bin/gnome-keyring-daemon"

    /// Starts the daemon on `bus` with its keyring under `home`, and waits until it owns the name.
    public static func start(on bus: PrivateBus, home: URL) throws {
        guard FileManager.default.isExecutableFile(atPath: daemon) else {
            throw MissingPrerequisite.error("gnome-keyring is missing (Debian: gnome-keyring)")
        }
        for sub in ["", "data", "run"] {
            try FileManager.default.createDirectory(at: home.appendingPathComponent(sub), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let started = try ChildProcess.run(
            daemon, ["--unlock", "--components=secrets"],
            environment: bus.clientEnvironment.merging([
                "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path, "XDG_RUNTIME_DIR": home.appendingPathComponent("run").path,
            ]) { $1 },
            stdin: Data("coffer-test-keyring".utf8), timeout: .seconds(30))
        guard started.status == 0 else { throw MissingPrerequisite.error("gnome-keyring-daemon did not start: \(started.stderrText)") }
        for _ in 0..<100 {
            if try bus.hasOwner("org.freedesktop.secrets") { return }
            usleep(50_000)
        }
        throw MissingPrerequisite.error("gnome-keyring-daemon did not take org.freedesktop.secrets within 5 s")
    }
}
