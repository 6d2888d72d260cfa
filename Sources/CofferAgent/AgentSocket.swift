import Coffer
import Foundation
import Glibc

/// The agent's Unix socket: where it is, and frames over it, every wait bounded.
package enum AgentSocket {
    /// `$COFFER_AGENT_SOCKET`, else `agent.sock` in ``RuntimeFolder`` (created 0700). Its folder must be
    /// the user's own and closed to others.
    package static func path(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CofferError) -> String {
        if let path = environment["COFFER_AGENT_SOCKET"], !path.isEmpty {
            guard path.hasPrefix("/") else { throw .invalidArgument(reason: "$COFFER_AGENT_SOCKET must be an absolute path") }
            let folder = path.lastIndex(of: "/").map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "/"
            _ = try RuntimeFolder.privateFolder(at: folder)
            return path
        }
        return try RuntimeFolder.url(environment: environment).path + "/agent.sock"
    }

    /// Why a client cannot reach an agent.
    package enum Unreachable: Error, Sendable, Hashable, CustomStringConvertible {
        /// No socket file: no agent runs. Not worth a word.
        case noAgent
        /// A socket file that nobody answers on: the agent died (`kill -9`) and left it behind.
        case stale(String)
        /// Connected, but the exchange failed or took too long.
        case broken(String)

        package var description: String {
            switch self {
            case .noAgent: "no agent runs"
            case .stale(let reason), .broken(let reason): reason
            }
        }
    }

    /// Connects to the agent at `path`.
    package static func connect(path: String) throws(Unreachable) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .broken("socket: \(String(cString: strerror(errno)))") }
        var address = try address(path)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard status == 0 else {
            let reason = errno
            close(descriptor)
            switch reason {
            case ENOENT: throw .noAgent
            case ECONNREFUSED: throw .stale("no agent answers at \(path)")
            default: throw .broken("cannot reach the agent at \(path): \(String(cString: strerror(reason)))")
            }
        }
        return descriptor
    }

    /// Listens at `path`, replacing a stale socket file (one nobody answers on); refuses when an
    /// agent already answers there.
    package static func listen(path: String) throws(CofferError) -> Int32 {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw .invalidArgument(reason: "\(path) exists and is not a socket") }
            let live: Int32?
            do throws(Unreachable) {
                live = try connect(path: path)
            } catch .stale {
                live = nil
                unlink(path)
            } catch .noAgent {
                live = nil
            } catch {
                throw .storageUnavailable(reason: "cannot check the socket at \(path)")
            }
            if let live {
                close(live)
                throw .invalidArgument(reason: "an agent already runs at \(path)")
            }
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .storageUnavailable(reason: "socket: \(describe(errno))") }
        var address: sockaddr_un
        do { address = try self.address(path) } catch { close(descriptor); throw .invalidArgument(reason: "the socket path is too long") }
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0, Glibc.listen(descriptor, 64) == 0 else {
            let reason = describe(errno)
            close(descriptor)
            throw .storageUnavailable(reason: "cannot listen at \(path): \(reason)")
        }
        return descriptor
    }

    private static func address(_ path: String) throws(Unreachable) -> sockaddr_un {
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
        var value = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes `message` as one frame.
    package static func write(_ message: AgentMessage, to descriptor: Int32) -> Bool {
        var frame = message.frame
        defer { _ = frame.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
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
        defer { _ = body.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
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

    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
