import AsyncHTTPClient
import CofferBase
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Sends one request and reads its whole reply, within a deadline and a size limit.
///
/// Every failure is an ``AuthError``: a URL that ``TransportSecurity`` refuses (plain HTTP to a
/// host that is not loopback) ``AuthError/invalidRequest(reason:)`` before any connection, the
/// deadline ``AuthError/timeout`` (it covers the body too, so a reply that stalls halfway
/// cannot hang the caller), a body over the limit ``AuthError/malformedResponse(reason:)``, a
/// failed connection ``AuthError/transport(reason:)``, and cancellation ``AuthError/cancelled``.
struct HTTPTransport: Sendable {
    let client: HTTPClient
    /// The deadline for the whole exchange, body included.
    let timeout: Duration
    /// The largest body read; a larger one is an error.
    let maxBodyBytes: Int
    /// Whether plain HTTP may go to hosts that are not loopback (with a warning each time).
    let allowsInsecureHTTP: Bool
    let logger: Logger

    func send(_ request: HTTPClientRequest) async throws(AuthError) -> HTTPReply {
        guard let url = URL(string: request.url) else { throw .invalidRequest(reason: "not a URL") }
        try TransportSecurity.check(url, allowInsecureHTTP: allowsInsecureHTTP, logger: logger)
        // The exchange runs in its own task so that the deadline can cancel it, body included;
        // the task starts on this thread at once (`immediate`), and the deadline is a timer on
        // one of the client's event loops, not a task: neither waits for a thread of the task
        // pool (docs/performance.md, the refresh).
        let exchange = Task.immediate { await perform(request) }
        let expired = Guarded(false)
        let deadline = client.eventLoopGroup.any().scheduleTask(in: .nanoseconds(Int64(timeout.clampedNanoseconds))) {
            expired.withLock { $0 = true }
            exchange.cancel()
        }
        let outcome = await withTaskCancellationHandler { await exchange.value } onCancel: { exchange.cancel() }
        deadline.cancel()
        if case .failure(let error) = outcome, !Task.isCancelled {
            // The exchange was cancelled, or failed once cancelled, by the deadline, not by the caller.
            if case .cancelled = error { throw .timeout }
            if expired.withLock({ $0 }) { throw .timeout }
        }
        logger.debug("HTTP exchange", metadata: [
            "method": "\(request.method.rawValue)", "url": "\(Self.redactedURL(request.url))",
            "outcome": "\((try? outcome.get()).map { "\($0.status)" } ?? "error")",
        ])
        return try outcome.get()
    }

    private func perform(_ request: HTTPClientRequest) async -> Result<HTTPReply, AuthError> {
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.clampedNanoseconds)))
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maxBodyBytes {
                return .failure(.malformedResponse(reason: "body of \(length) bytes exceeds the \(maxBodyBytes)-byte limit"))
            }
            let body = try await response.body.collect(upTo: maxBodyBytes)
            return .success(HTTPReply(
                status: Int(response.status.code),
                headers: response.headers.map { (name: $0.name, value: $0.value) },
                body: Data(body.readableBytesView)))
        } catch {
            return .failure(Self.map(error, limit: maxBodyBytes))
        }
    }

    /// Maps AsyncHTTPClient's and NIO's errors to ``AuthError``, without secrets.
    static func map(_ error: any Error, limit: Int) -> AuthError {
        if let error = error as? AuthError { return error }
        if error is CancellationError { return .cancelled }
        if error is NIOTooManyBytesError {
            return .malformedResponse(reason: "body exceeds the \(limit)-byte limit")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .cancelled
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout: return .timeout
            case .remoteConnectionClosed: return .transport(reason: "the connection closed before the reply was complete")
            default: return .transport(reason: "\(error)")
            }
        }
        return .transport(reason: String(describing: type(of: error)) + ": \(error)")
    }

    /// The URL without its query, which may carry secrets.
    static func redactedURL(_ url: String) -> String {
        url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
    }
}
