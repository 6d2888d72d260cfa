import Foundation
import Glibc

/// Many open TCP connections to a loopback port that send nothing (or a little), as another
/// local user would hold them to keep a listener busy. They close when this is released.
public final class HeldConnections {
    /// The connected sockets.
    public private(set) var descriptors: [Int32] = []

    /// Opens `count` connections to 127.0.0.1:`port`, raising this process's soft limit on open
    /// files to its hard limit first so that the test itself does not run out.
    public init(count: Int, toPort port: Int) throws {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        for _ in 0..<count {
            descriptors.append(try Self.connect(port: port))
        }
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }

    /// Connects one socket to 127.0.0.1:`port`.
    public static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HeldConnectionsError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw HeldConnectionsError("connect to 127.0.0.1:\(port): \(reason)")
        }
        return descriptor
    }

    /// Whether the peer has closed `descriptor`, waiting up to `timeout` for it to do so.
    public static func isClosedByPeer(_ descriptor: Int32, within timeout: Duration) -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, milliseconds) > 0 else { return false }
        var byte: UInt8 = 0
        let received = recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT))
        return received == 0 || (received < 0 && errno == ECONNRESET)
    }
}

/// Why a held connection could not be opened.
public struct HeldConnectionsError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
