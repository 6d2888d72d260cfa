import Foundation
import Glibc

/// A session bus of the test's own: `dbus-daemon` on a socket in a temporary folder, with no
/// service activation unless a folder of `.service` files is given (so that nothing, gnome-keyring
/// least of all, starts on demand), gone when the value is.
///
/// The fault campaign has its own, in Python (scripts/torture/private_bus.py): plain `swift test`
/// must run these tests with no script or Python package present, and the daemon's lifetime is
/// this value's, which only an object in the test process can give.
public final class PrivateBus: @unchecked Sendable {
    public let folder = TemporaryFolder()
    /// The bus's address, for `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    private let daemon: ChildProcess

    /// Starts the daemon; with `serviceFolder`, the bus activates the services described there.
    public init(serviceFolder: URL? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            throw MissingPrerequisite.error("dbus-daemon is not installed (Debian: dbus-daemon)")
        }
        let socket = folder.file("bus").path
        let services = serviceFolder.map { "<servicedir>\($0.path)</servicedir>" } ?? ""
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              \(services)
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try Data(configuration.utf8).write(to: folder.file("bus.conf"))
        daemon = try ChildProcess.start("/usr/bin/dbus-daemon", ["--config-file=\(folder.file("bus.conf").path)", "--nofork", "--nopidfile"])
        address = "unix:path=\(socket)"
        let deadline = ContinuousClock.now + .seconds(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard ContinuousClock.now < deadline else { throw ChildProcessError.timedOut(stderr: "dbus-daemon did not start") }
            usleep(10_000)
        }
    }

    deinit {
        kill(daemon.pid, SIGTERM)
        _ = try? daemon.wait(timeout: .seconds(10))
    }

    /// The environment a client on this bus runs with: its address, and no display.
    public var clientEnvironment: [String: String?] {
        ["DBUS_SESSION_BUS_ADDRESS": address, "DISPLAY": nil, "WAYLAND_DISPLAY": nil, "DBUS_STARTER_ADDRESS": nil]
    }

    /// Whether a connection owns `name` on this bus now.
    public func hasOwner(_ name: String) throws -> Bool {
        let output = try ChildProcess.run(
            "dbus-send", ["--bus=\(address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus.NameHasOwner", "string:\(name)"], timeout: .seconds(10))
        return output.stdoutText.contains("boolean true")
    }
}
