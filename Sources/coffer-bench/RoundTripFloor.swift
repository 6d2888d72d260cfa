@_spi(Benchmarks) import Coffer
import CofferAgentWire
import Foundation

/// The floor under the agent's round trip, measured in the same run: another process that
/// answers each request frame with a `done` reply on a blocking socket, on one thread, doing
/// nothing else (`coffer-bench round-trip-server PATH`), and a client that sends it the frame
/// of a `holds` request and reads the reply, as `Keychain(service:)` does over its kept
/// connection.
enum RoundTripFloor {
    /// Serves one connection on `path` until its client closes it.
    static func serve(path: String) -> Never {
        guard let listener = try? AgentSocket.listen(path: path) else { exit(1) }
        let connection = accept(listener, nil, nil)
        let reply = AgentReply.done.message
        while AgentSocket.read(from: connection) != nil {
            guard AgentSocket.write(reply, to: connection) else { break }
        }
        exit(0)
    }

    /// A connection to a server started on `path` by `start`.
    final class Client {
        private let server: BenchProcess
        private let descriptor: Int32
        private let request: AgentMessage

        init(bench: String, path: String, vault: String) throws {
            server = try BenchProcess.start(bench, ["round-trip-server", path], environment: ProcessInfo.processInfo.environment)
            var connected: Int32?
            for _ in 0..<500 where connected == nil {
                connected = try? AgentSocket.connect(path: path)
                if connected == nil { usleep(10_000) }
            }
            guard let connected else { throw CofferError.storageUnavailable(reason: "the round-trip server did not start") }
            descriptor = connected
            request = AgentRequest.holds(vault: vault).message
        }

        deinit {
            close(descriptor)
            server.stop()
        }

        /// One request and its reply.
        func roundTrip() throws {
            guard AgentSocket.write(request, to: descriptor), AgentSocket.read(from: descriptor) != nil else {
                throw CofferError.storageUnavailable(reason: "the round-trip server stopped")
            }
        }
    }
}
