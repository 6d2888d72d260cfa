import CofferAgent
import Coffer
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// A peer that ends and whose PID another process is given gets nothing: that process is not
/// taken for it. The PID is handed to the second process on purpose, through
/// `/proc/sys/kernel/ns_last_pid` (root only), so each test is deterministic.
final class PIDReuseTests: XCTestCase {
    let folder = TemporaryFolder()
    var helper: String { BuiltProducts.executable("coffer-test-helper").path }

    /// A shell that waits on stdin, as the process with `pid`.
    func startShell(withPID pid: pid_t) throws -> ChildProcess {
        try ForcedPID.start("/bin/sh", ["-c", "echo ready; read line"], pid: pid, awaiting: "ready")
    }

    /// A peer (the helper) that connects, then ends.
    func peerThatConnects(to socket: PeerSocket) throws -> ChildProcess {
        let peer = try ChildProcess.start(helper, ["peer", socket.path], inputs: [0: nil])
        XCTAssertTrue(peer.waitForLine("connected", timeout: .milliseconds(TestTiming.limit(milliseconds: 20_000))))
        return peer
    }

    /// With the kernel's pidfd (`SO_PEERPIDFD`): the peer connected and ended, and its PID went
    /// to a shell before the agent accepted. The pidfd names the peer, which has ended, so the
    /// connection gets no caller, although everything `/proc/PID` says is the shell's.
    func testAPIDReusedBeforeTheAcceptGetsNothing() throws {
        let socket = try PeerSocket(path: folder.file("peer.sock").path)
        let peer = try peerThatConnects(to: socket)
        let pid = peer.pid
        peer.stop()
        let shell = try startShell(withPID: pid)
        defer { shell.stop() }
        let connection = try socket.accept()
        defer { close(connection) }
        XCTAssertThrowsError(try CallerResolver().resolve(socket: connection)) { error in
            XCTAssertEqual(error as? CallerResolutionError, .ended)
        }
    }

    /// Pinned at the accept (both ways: the kernel's pidfd, and `SO_PEERCRED` then
    /// `pidfd_open` as on kernels before 6.5), the peer ends and its PID goes to a shell before
    /// the caller is worked out: the process at the PID started after the accept, so it is
    /// refused.
    func testAPIDReusedAfterTheAcceptGetsNothing() throws {
        for kernelPidfd in [true, false] {
            let socket = try PeerSocket(path: folder.file("peer-\(kernelPidfd).sock").path)
            let resolver = CallerResolver(kernelPidfd: kernelPidfd)
            let peer = try peerThatConnects(to: socket)
            let connection = try socket.accept()
            defer { close(connection) }
            let accepted = try resolver.peer(ofSocket: connection)
            XCTAssertEqual(accepted.pid, peer.pid)
            peer.stop()
            // A tick of the start-time clock (10 ms) passes, so the shell starts in a later one.
            usleep(20_000)
            let shell = try startShell(withPID: accepted.pid)
            defer { shell.stop() }
            XCTAssertThrowsError(try resolver.resolve(accepted), "kernelPidfd: \(kernelPidfd)") { error in
                XCTAssertEqual(error as? CallerResolutionError, .pidReused)
            }
        }
    }
}
