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

    /// Who may connect to a bus, and who runs its daemon, for tests with two users on one bus.
    public struct Users: Sendable {
        /// Every user may connect (`<allow user="*"/>`), not only the daemon's own.
        public var everyone = false
        /// The daemon runs as this user (through `setpriv`; the tests run as root), not as root.
        public var daemon: uid_t?

        public init(everyone: Bool = false, daemon: uid_t? = nil) {
            self.everyone = everyone
            self.daemon = daemon
        }
    }

    /// Starts the daemon; with `serviceFolder`, the bus activates the services described there.
    /// `users` opens the bus to every user or runs it as another; `abstract` makes it listen on
    /// an abstract socket instead of one in the folder.
    public init(serviceFolder: URL? = nil, users: Users = Users(), abstract: Bool = false) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            throw MissingPrerequisite.error("dbus-daemon is not installed (Debian: dbus-daemon)")
        }
        let socket = folder.file("bus").path
        let services = serviceFolder.map { "<servicedir>\($0.path)</servicedir>" } ?? ""
        let listen = abstract ? "unix:abstract=\(socket)" : "unix:path=\(socket)"
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(listen)</listen>
              <auth>EXTERNAL</auth>
              \(services)
              <policy context="default">
                \(users.everyone ? "<allow user=\"*\"/>" : "")
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try Data(configuration.utf8).write(to: folder.file("bus.conf"))
        // Another user reaches the socket through the folder; a daemon of another user makes it there.
        if users.everyone { chmod(folder.url.path, 0o711) }
        var command = ["/usr/bin/dbus-daemon", "--config-file=\(folder.file("bus.conf").path)", "--nofork", "--nopidfile"]
        if let user = users.daemon {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
                throw MissingPrerequisite.error("setpriv is not installed (Debian: util-linux)")
            }
            chown(folder.url.path, user, gid_t(user))
            chown(folder.file("bus.conf").path, user, gid_t(user))
            command = ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups"] + command
        }
        daemon = try ChildProcess.start(command[0], Array(command.dropFirst()))
        address = listen
        let deadline = ContinuousClock.now + .seconds(10)
        // Until it accepts: its socket file appears at bind(), before listen(), and a client that
        // connects in between is refused.
        while !Self.accepts(socket, abstract: abstract) {
            guard ContinuousClock.now < deadline else {
                throw ChildProcessError.timedOut(stderr: "dbus-daemon did not start: " + (daemon.stop()?.stderrText ?? ""))
            }
            usleep(10_000)
        }
    }

    /// Whether a Unix socket at `path` (an abstract name when `abstract`) accepts a connection now.
    public static func accepts(_ path: String, abstract: Bool = false) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = (abstract ? [0] : []) + Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) == 0 }
        }
    }

    deinit {
        end()
    }

    /// Ends the bus: its daemon exits, and every connection to it closes.
    public func end() {
        daemon.stop(grace: .seconds(10))
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
