import CLinux
import Glibc

/// Two connected descriptors for talking to a child, both close-on-exec from the start, so
/// that no child another thread starts meanwhile inherits them.
package enum DescriptorPair {
    /// A pipe: `(read, write)`.
    package static func pipe() throws(ChildSpawnFailure) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard coffer_pipe_cloexec(&ends) == 0 else { throw .system(call: "pipe2", errno: errno) }
        return (ends[0], ends[1])
    }

    /// A Unix stream socket pair: written with `MSG_NOSIGNAL`, a peer that is gone is `EPIPE`,
    /// not SIGPIPE.
    package static func socketPair() throws(ChildSpawnFailure) -> (parent: Int32, child: Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .system(call: "socketpair", errno: errno)
        }
        return (ends[0], ends[1])
    }
}
