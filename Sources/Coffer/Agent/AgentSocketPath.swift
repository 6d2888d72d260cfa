import CofferAgentWire
import CofferBase
import FoundationEssentials
import Glibc

extension AgentSocket {
    /// `$COFFER_AGENT_SOCKET`, else `agent.sock` in ``RuntimeFolder`` (created 0700). Its folder must be
    /// the user's own and closed to others, and the path must fit a Unix socket address
    /// (``maxPathBytes``): a longer one is refused with advice, never shortened behind the user's back.
    package static func path(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CofferError) -> String {
        let path: String
        if let given = environment["COFFER_AGENT_SOCKET"], !given.isEmpty {
            guard given.hasPrefix("/") else { throw .invalidArgument(reason: "$COFFER_AGENT_SOCKET must be an absolute path") }
            _ = try RuntimeFolder.privateFolder(at: folder(of: given))
            path = given
        } else {
            path = try RuntimeFolder.url(environment: environment).path + "/" + fileName
        }
        guard path.utf8.count <= maxPathBytes else {
            throw .invalidArgument(reason: """
                the agent's socket path \(path) is \(path.utf8.count) bytes, and a Unix socket's is at most \(maxPathBytes): \
                set $COFFER_AGENT_SOCKET (or $XDG_RUNTIME_DIR) to a shorter one
                """)
        }
        return path
    }

    /// Listens at `path`, replacing a stale socket file (one nobody answers on); refuses when an
    /// agent already answers there.
    package static func listen(path: String) throws(CofferError) -> Int32 {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw .invalidArgument(reason: "\(path) exists and is not a socket") }
            let live: Int32?
            do throws(Unreachable) {
                live = try connect(path: path, timeout: .seconds(2))
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
        // The socket file takes the socket's own mode (less the umask) at bind: 0600 from the
        // start, without changing the process's umask, which other threads (a share being made,
        // a child being started) would see. Its folder is the user's alone (or sticky), so the
        // chmod after bind reaches the same file.
        let bound = fchmod(descriptor, 0o600) == 0 ? withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } : -1
        // A umask that takes the owner's bits would leave a socket the user cannot connect to.
        guard bound == 0, chmod(path, 0o600) == 0, Glibc.listen(descriptor, SOMAXCONN) == 0 else {
            let reason = describe(errno)
            close(descriptor)
            throw .storageUnavailable(reason: "cannot listen at \(path): \(reason)")
        }
        return descriptor
    }
}
