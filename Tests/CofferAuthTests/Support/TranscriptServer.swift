import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A real HTTP server on 127.0.0.1 (a free port) that plays the server side of a golden
/// ``Transcript``: it answers the requests in order with the transcript's replies and records
/// what it was sent, for the test to hold against the transcript's requests afterwards. A
/// request beyond the transcript is answered 599, so the test sees it.
final class TranscriptServer: Sendable {
    /// A request as the server received it.
    struct Recorded: Sendable, CustomStringConvertible {
        let method: String
        /// Path and query, as sent.
        let target: String
        let headers: [(name: String, value: String)]
        let body: Data

        var path: String { String(target.prefix { $0 != "?" }) }
        var query: [String: String] {
            guard let mark = target.firstIndex(of: "?") else { return [:] }
            return Transcript.formFields(String(target[target.index(after: mark)...]))
        }
        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        var text: String { String(decoding: body, as: UTF8.self) }
        var form: [String: String] { Transcript.formFields(text) }

        var description: String { "\(method) \(path)" }
    }

    /// What the responder and the test share.
    private final class State: Sendable {
        let replies: Mutex<[@Sendable (Recorded, URL) -> Transcript.Reply]>
        let received = Mutex<[Recorded]>([])
        let baseURL = Mutex<URL?>(nil)

        init(_ replies: [@Sendable (Recorded, URL) -> Transcript.Reply]) { self.replies = Mutex(replies) }
    }

    let baseURL: URL
    private let state: State
    private let services: ServiceGroup
    private let task: Task<Void, any Error>

    /// Every request so far, in order.
    var requests: [Recorded] { state.received.withLock { $0 } }

    private init(baseURL: URL, state: State, services: ServiceGroup, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.state = state
        self.services = services
        self.task = task
    }

    /// Starts a server that answers with `replies`, one a request, in order.
    static func start(_ replies: [@Sendable (Recorded, URL) -> Transcript.Reply]) async throws -> TranscriptServer {
        let state = State(replies)
        let (ports, portSink) = AsyncStream<Int>.makeStream()
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            let recorded = Recorded(
                method: request.method.rawValue, target: request.uri.description,
                headers: request.headers.map { ($0.name.rawName, $0.value) }, body: Data(buffer: body))
            state.received.withLock { $0.append(recorded) }
            let next = state.replies.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let next, let url = state.baseURL.withLock({ $0 }) else {
                return Response(status: .init(code: 599), body: .init(byteBuffer: ByteBuffer(string: "the transcript has no more replies")))
            }
            let reply = next(recorded, url)
            var response = Response(status: .init(code: reply.status), body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
            for (name, value) in reply.headers {
                if let field = HTTPFields.Element.Name(name) { response.headers.append(HTTPFields.Element(name: field, value: value)) }
            }
            return response
        }
        let quiet = Logger(label: "transcript", factory: { _ in SwiftLogNoOpLogHandler() })
        let application = Application(
            responder: responder, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "transcript"),
            onServerRunning: { channel in
                portSink.yield(channel.localAddress?.port ?? 0)
                portSink.finish()
            }, logger: quiet)
        let services = ServiceGroup(configuration: .init(services: [application], logger: quiet))
        let task = Task { try await services.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else { throw CancellationError() }
        let url = URL(string: "http://127.0.0.1:\(port)")!
        state.baseURL.withLock { $0 = url }
        return TranscriptServer(baseURL: url, state: state, services: services, task: task)
    }

    func stop() async {
        await services.triggerGracefulShutdown()
        _ = await task.result
    }
}
