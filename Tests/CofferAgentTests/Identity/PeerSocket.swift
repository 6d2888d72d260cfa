import Coffer
import CofferAgent
import CofferAgentWire
import Foundation
import Glibc
import XCTest

/// A Unix socket the identity tests listen on, made as the agent makes its own
/// (``AgentSocket/listen(path:)``), whose connections they accept one at a time.
final class PeerSocket {
    let path: String
    private let listener: Int32

    /// Listens at `path`; with `openToAll`, any user may connect (for peers of another uid).
    init(path: String, openToAll: Bool = false) throws {
        self.path = path
        listener = try AgentSocket.listen(path: path)
        if openToAll { chmod(path, 0o666) }
    }

    deinit {
        close(listener)
    }

    /// The next connection, waiting up to 10 s.
    func accept() throws -> Int32 {
        var polled = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&polled, 1, 10_000) == 1 else { throw NoConnection() }
        let descriptor = Glibc.accept(listener, nil, nil)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return descriptor
    }
}

/// No peer connected in time.
struct NoConnection: Error {}
