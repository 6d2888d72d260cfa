import Coffer
import CofferAgentWire
import Glibc

/// A process that connects to a Unix socket, for the tests that tell which program a peer is:
///   peer SOCKET   connect, print "connected", then wait for stdin to close
///   ping SOCKET   connect, send the agent a ping, print "replied" once its reply is read,
///                 then wait for stdin to close
///   ping-reply SOCKET  connect, send a ping, print the reply (an error's message), and exit;
///                 exit 1, printing nothing, when the connect fails
enum AgentPeer {
    /// Runs the command in `arguments` and returns its exit status; `nil` when it is not one of these.
    static func run(_ arguments: [String]) -> Int32? {
        if arguments.count == 2, arguments[0] == "ping-reply" { return pingReply(arguments[1]) }
        guard arguments.count == 2, arguments[0] == "peer" || arguments[0] == "ping" else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(arguments[1].utf8)
        guard descriptor >= 0, path.count < MemoryLayout.size(ofValue: address.sun_path) else { return 1 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path + [0]) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return 1 }
        if arguments[0] == "ping" {
            // A frame of the agent protocol: length 2, version 1, kind 1 (ping).
            let ping: [UInt8] = [0, 0, 0, 2, 1, 1]
            guard send(descriptor, ping, ping.count, 0) == ping.count, readReply(descriptor) else { return 1 }
            print("replied")
        } else {
            print("connected")
        }
        fflush(nil)
        var byte: UInt8 = 0
        while read(0, &byte, 1) > 0 {}
        return 0
    }

    private static func pingReply(_ path: String) -> Int32 {
        guard let descriptor = try? AgentSocket.connect(path: path) else { return 1 }
        defer { close(descriptor) }
        // An agent that refuses the connection answers and closes at once, maybe before the ping
        // is written: its reply is read all the same.
        _ = AgentSocket.write(AgentRequest.ping.message, to: descriptor)
        guard let message = AgentSocket.read(from: descriptor),
              let reply = try? AgentReply(message, to: .ping)
        else { return 2 }
        switch reply {
        case .failure(let error): print("error: \(error)")
        default: print("served")
        }
        return 0
    }

    /// Reads one whole frame.
    private static func readReply(_ descriptor: Int32) -> Bool {
        guard let prefix = readExactly(4, descriptor) else { return false }
        let length = prefix.reduce(0) { $0 << 8 | Int($1) }
        return readExactly(length, descriptor) != nil
    }

    private static func readExactly(_ count: Int, _ descriptor: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + offset, count - offset, 0) }
            guard got > 0 else { return nil }
            offset += got
        }
        return bytes
    }
}
