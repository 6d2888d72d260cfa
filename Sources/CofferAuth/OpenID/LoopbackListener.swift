import CofferBase
import Coffer
import Foundation
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix

/// A one-shot HTTP listener on loopback for the redirect of a browser login (RFC 8252 §7.3):
/// `http://127.0.0.1:PORT/callback` at a random port, or the fixed ``LoopbackRedirectURI`` a
/// provider that matches redirect URIs exactly needs.
///
/// Every request to the redirect path goes to a judge. Requests it refuses (no login's state, a
/// repeated parameter) are answered with an error page and the listener keeps waiting; the
/// first one it accepts is answered with a short "you can close this window" page, ends the
/// wait, and closes the listener, so a second callback finds nothing listening. Other paths
/// get 404. The listener is bound to loopback only.
///
/// Another local user can connect too, so connections cannot hold it off: each must send its
/// request within ``Limits/requestDeadline`` of connecting, and beyond ``Limits/maxConnections``
/// the oldest connection that has not yet sent a request head gives way to the new one.
final class LoopbackListener: Sendable {
    /// What the judge decides for a callback.
    enum Verdict: Sendable {
        /// This callback ends the login: with its code, or with the error it carries.
        case accept(Result<String, AuthError>)
        /// Not this login's callback: answer it with `status` and keep waiting.
        case refuse(status: HTTPResponseStatus)
    }

    /// How many connections the listener keeps, and for how long.
    struct Limits: Sendable {
        /// Connections open at once; a new one beyond this closes the oldest idle one.
        var maxConnections = 64
        /// How long a connection may take to send its request.
        var requestDeadline: TimeAmount = .seconds(10)
    }

    static let defaultPath = "/callback"

    let port: Int
    /// The redirect URI to register with the authorization request.
    let redirectURI: String
    private let path: String
    private let channel: any Channel
    private let judge: @Sendable ([URLQueryItem]) -> Verdict
    private let state = Guarded(State())

    private struct State {
        var outcome: Result<String, AuthError>?
        var waiter: CheckedContinuation<Result<String, AuthError>, Never>?
    }

    private init(redirectURI: String, port: Int, path: String, channel: any Channel, judge: @escaping @Sendable ([URLQueryItem]) -> Verdict) {
        self.redirectURI = redirectURI
        self.port = port
        self.path = path
        self.channel = channel
        self.judge = judge
    }

    /// Starts listening: at `fixed`'s address, port and path, or on 127.0.0.1 at a free port.
    static func start(
        at fixed: LoopbackRedirectURI? = nil, limits: Limits = Limits(), judge: @escaping @Sendable ([URLQueryItem]) -> Verdict
    ) async throws(AuthError) -> LoopbackListener {
        let box = ListenerBox()
        let gate = ConnectionGate(capacity: limits.maxConnections)
        let (address, requestedPort) = (fixed?.bindAddress ?? "127.0.0.1", fixed?.port ?? 0)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    guard gate.admit(channel) else { return channel.close() }
                    let deadline = channel.eventLoop.scheduleTask(in: limits.requestDeadline) { channel.close(promise: nil) }
                    channel.closeFuture.whenComplete { _ in
                        deadline.cancel()
                        gate.remove(channel)
                    }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(CallbackHandler(listener: box, gate: gate))
                    }
                }
                .bind(host: address, port: requestedPort).get()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw .transport(reason: "cannot listen on \(fixed?.uri ?? address): the port is in use")
        } catch {
            throw .transport(reason: "cannot listen on \(address): \(error)")
        }
        guard let port = channel.localAddress?.port else {
            channel.close(promise: nil)
            throw .transport(reason: "the loopback listener has no port")
        }
        let listener = LoopbackListener(
            redirectURI: fixed?.uri ?? "http://127.0.0.1:\(port)\(defaultPath)", port: port, path: fixed?.path ?? defaultPath,
            channel: channel, judge: judge)
        box.listener.withLock { $0 = listener }
        return listener
    }

    /// Waits for the accepted callback, up to `timeout`; cancelling the task ends the wait too.
    /// Either way the listener is closed.
    func result(timeout: Duration) async throws(AuthError) -> String {
        let outcome = await withTaskGroup(of: Result<String, AuthError>?.self) { group in
            group.addTask { await self.nextOutcome() }
            group.addTask {
                guard (try? await Task.sleep(for: timeout)) != nil else { return nil }
                return .failure(.timeout)
            }
            var first: Result<String, AuthError> = .failure(.cancelled)
            for await result in group {
                guard let result else { continue }
                first = result
                break
            }
            group.cancelAll()
            return first
        }
        finish(outcome)
        close()
        return try outcome.get()
    }

    /// Stops listening and ends any wait with ``AuthError/cancelled``.
    func close() {
        finish(.failure(.cancelled))
        channel.close(promise: nil)
    }

    private func nextOutcome() async -> Result<String, AuthError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, AuthError>, Never>) in
                let ready: Result<String, AuthError>? = state.withLock { state in
                    if let outcome = state.outcome { return outcome }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            finish(.failure(.cancelled))
        }
    }

    /// Records the first outcome and wakes the waiter; later outcomes are ignored.
    private func finish(_ outcome: Result<String, AuthError>) {
        let waiter: CheckedContinuation<Result<String, AuthError>, Never>? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Decides on one request, on the event loop: the status and page to answer with.
    fileprivate func handle(_ head: HTTPRequestHead) -> (HTTPResponseStatus, String) {
        let components = URLComponents(string: head.uri)
        guard head.method == .GET, components?.percentEncodedPath == path else { return (.notFound, Pages.notFound) }
        guard state.withLock({ $0.outcome == nil }) else { return (.gone, Pages.finished) }
        switch judge(components?.queryItems ?? []) {
        case .refuse(let status):
            return (status, Pages.refused)
        case .accept(let outcome):
            finish(outcome)
            channel.close(promise: nil)
            switch outcome {
            case .success: return (.ok, Pages.success)
            case .failure: return (.ok, Pages.failed)
            }
        }
    }

    /// The short pages the browser shows.
    private enum Pages {
        static func page(_ title: String, _ text: String) -> String {
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>\(title)</title></head>"
                + "<body style=\"font-family: sans-serif; margin: 3em\"><h1>\(title)</h1><p>\(text)</p></body></html>"
        }

        static let success = page("Logged in", "You can close this window and return to the application.")
        static let failed = page("Login not completed", "The login did not complete. You can close this window; the application says why.")
        static let refused = page("Not this login", "This is not the response the application is waiting for.")
        static let finished = page("Already done", "This login has already finished. You can close this window.")
        static let notFound = page("Not found", "Nothing here.")
    }
}

/// Lets the channel handlers reach the listener, which exists only once the port is bound.
private final class ListenerBox: Sendable {
    let listener = Guarded<LoopbackListener?>(nil)
}

/// Answers each request on a connection, then closes the connection.
private final class CallbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let box: ListenerBox
    private let gate: ConnectionGate
    private var head: HTTPRequestHead?

    init(listener: ListenerBox, gate: ConnectionGate) {
        self.box = listener
        self.gate = gate
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            gate.markActive(context.channel)
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            let (status, page) = box.listener.withLock { $0 }?.handle(head) ?? (.serviceUnavailable, "")
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
            headers.add(name: "Content-Length", value: "\(page.utf8.count)")
            headers.add(name: "Cache-Control", value: "no-store")
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: page)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }
}
