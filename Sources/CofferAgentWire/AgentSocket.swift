import CofferBase
import Glibc

/// The agent's Unix socket: where it is, and frames over it, every wait bounded.
package enum AgentSocket {
    /// The socket's name in ``RuntimeFolderLocation``'s folder.
    package static let fileName = "agent.sock"

    /// The longest socket path `sockaddr_un` holds: 108 bytes of `sun_path`, less the final NUL.
    package static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// The folder that holds the socket at `path`.
    package static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "/"
    }

    /// Why a client cannot reach an agent.
    package enum Unreachable: Error, Sendable, Hashable, CustomStringConvertible {
        /// No socket file: no agent runs. Not worth a word.
        case noAgent
        /// A socket file that nobody answers on: the agent died (`kill -9`) and left it behind.
        case stale(String)
        /// Connected, but the exchange failed or took too long.
        case broken(String)
        /// What answers is not this user's agent (another uid), or its folder is not private:
        /// nothing was sent to it.
        case untrusted(String)

        package var description: String {
            switch self {
            case .noAgent: "no agent runs"
            case .stale(let reason), .broken(let reason), .untrusted(let reason): reason
            }
        }
    }

    /// Where a client looks for the agent's socket: `$COFFER_AGENT_SOCKET` when it names an
    /// absolute path, else ``fileName`` in ``RuntimeFolderLocation``'s folder. Creates and checks
    /// nothing (``checkPeer(_:path:)`` checks what answers there); `nil` when there is no such place.
    package static func expectedPath(environment: (String) -> String?) -> String? {
        if let given = environment("COFFER_AGENT_SOCKET"), !given.isEmpty { return given.hasPrefix("/") ? given : nil }
        return (try? RuntimeFolderLocation.resolve(environment: environment)).map { $0.folder + "/" + fileName }
    }

    /// Before any byte goes out (a request may carry a passphrase): the process that accepted on
    /// `descriptor` is this user's (`SO_PEERCRED`), and the socket's folder is private with safe
    /// folders above it (``PathSafety/checkPrivateFolder(_:)``).
    package static func checkPeer(_ descriptor: Int32, path: String) throws(Unreachable) {
        guard let uid = peerUID(descriptor) else { throw .untrusted("cannot tell who serves \(path): nothing sent") }
        guard uid == geteuid() else {
            throw .untrusted("the process at \(path) runs as uid \(uid), not as this user: it is not your agent, and nothing was sent to it")
        }
        do throws(PathSafety.Problem) {
            try PathSafety.checkPrivateFolder(folder(of: path))
        } catch {
            throw .untrusted("\(error.description); nothing was sent to the agent at \(path)")
        }
    }

    /// Connects to the agent at `path`, every read and write (the connect too) bounded by `timeout`.
    package static func connect(path: String, timeout: Duration = .seconds(5)) throws(Unreachable) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .broken("socket: \(describe(errno))") }
        // Set first: a connect waits on a full listen backlog (a stuck agent) for the send timeout.
        setTimeout(descriptor, timeout)
        var address: sockaddr_un
        do { address = try self.address(path) } catch { close(descriptor); throw error }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard status == 0 else {
            let reason = errno
            close(descriptor)
            switch reason {
            case ENOENT: throw .noAgent
            case ECONNREFUSED: throw .stale("no agent answers at \(path)")
            case EAGAIN, ETIMEDOUT: throw .broken("the agent at \(path) did not accept the connection in time")
            default: throw .broken("cannot reach the agent at \(path): \(describe(reason))")
            }
        }
        return descriptor
    }

    /// The user id of the process at the other end of the connected socket `descriptor`, as the
    /// kernel recorded it at connect (`SO_PEERCRED`); `nil` when it cannot say.
    package static func peerUID(_ descriptor: Int32) -> uid_t? {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which Glibc's module does not export.
        var peer: (pid: Int32, uid: UInt32, gid: UInt32) = (0, UInt32.max, UInt32.max)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &peer, &length) == 0 else { return nil }
        return peer.uid
    }

    /// The `sockaddr_un` of `path`; throws when it does not fit.
    package static func address(_ path: String) throws(Unreachable) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw .broken("the socket path is too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }

    /// Sets `timeout` on every read and write of `descriptor`, so a peer that stops answering
    /// cannot hang the other side.
    package static func setTimeout(_ descriptor: Int32, _ timeout: Duration) {
        var value = timeout.clampedTimeval
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes `request` on the connection `descriptor` and reads the reply frame, each bounded
    /// by the socket's timeouts.
    package static func exchange(_ request: AgentMessage, over descriptor: Int32) throws(Unreachable) -> AgentMessage {
        guard write(request, to: descriptor) else { throw .broken("the agent did not take the request in time") }
        guard let reply = read(from: descriptor) else { throw .broken("the agent did not answer (closed, timed out or sent a malformed reply)") }
        return reply
    }

    /// Writes `message` as one frame.
    package static func write(_ message: AgentMessage, to descriptor: Int32) -> Bool {
        var frame = message.frame
        defer { SecretMemory.zero(&frame) }
        var offset = 0
        while offset < frame.count {
            let written = frame.withUnsafeBytes { send(descriptor, $0.baseAddress! + offset, frame.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads one frame; `nil` when the peer closed, timed out, or sent a malformed or oversized one.
    package static func read(from descriptor: Int32) -> AgentMessage? {
        guard let prefix = readExactly(4, from: descriptor) else { return nil }
        let length = Int(readUInt32(prefix, at: 0))
        guard length >= 2, length <= AgentMessage.maxBodyBytes, var body = readExactly(length, from: descriptor) else { return nil }
        defer { SecretMemory.zero(&body) }
        return AgentMessage(body: body)
    }

    private static func readExactly(_ count: Int, from descriptor: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let received = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + offset, count - offset, 0) }
            if received < 0, errno == EINTR { continue }
            guard received > 0 else { return nil }
            offset += received
        }
        return bytes
    }

    /// Makes `descriptor` non-blocking and close-on-exec (Glibc's module has no `accept4`). A
    /// process another thread starts meanwhile does not inherit it all the same: every child is
    /// started through `ChildCommand`, which closes all but the descriptors it names. On failure
    /// the descriptor is closed and `errno` set.
    package static func makeNonBlocking(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else {
            let reason = errno
            close(descriptor)
            errno = reason
            return false
        }
        return true
    }

    package static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
