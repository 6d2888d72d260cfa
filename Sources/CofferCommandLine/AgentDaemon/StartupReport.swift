import FoundationEssentials
import Glibc

/// How a background agent tells `coffer agent start` why it could not start: a pipe the
/// starting command gives it as descriptor 3, named in `$COFFER_AGENT_STARTUP_FD`. The agent
/// writes its reason there and exits, or closes it once it serves.
package enum StartupReport {
    package static let variable = "COFFER_AGENT_STARTUP_FD"
    package static let descriptor: Int32 = 3

    /// The descriptor this agent reports on, when `coffer agent start` started it: a pipe's
    /// write end. The variable alone is not enough: systemd passes its socket as descriptor 3
    /// too, and a variable left in the environment would have the agent close the socket it serves.
    private static var inherited: Int32? {
        guard let text = ProcessInfo.processInfo.environment[variable], let value = Int32(text), value == descriptor else { return nil }
        var status = stat()
        guard fstat(value, &status) == 0, status.st_mode & S_IFMT == S_IFIFO, fcntl(value, F_GETFL) & O_ACCMODE == O_WRONLY else { return nil }
        return value
    }

    package static func write(_ reason: String) {
        guard let descriptor = inherited else { return }
        _ = Array(reason.utf8).withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        Glibc.close(descriptor)
    }

    package static func close() {
        if let descriptor = inherited { Glibc.close(descriptor) }
        unsetenv(variable)
    }

    /// What the agent reported (empty when nothing), read by the starting command.
    package static func read(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while bytes.count < 4096, poll(&poller, 1, 500) > 0 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
