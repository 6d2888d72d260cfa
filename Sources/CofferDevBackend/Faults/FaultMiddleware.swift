import Hummingbird

/// Answers with the armed fault, if any, before the route runs.
struct FaultMiddleware<Context: RequestContext>: RouterMiddleware {
    let faults: FaultInjector
    let maxHang: Duration
    let configuration: DevBackend.Configuration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let endpoint = DevBackendPath.endpoint(of: request.uri.path, in: configuration), let fault = faults.take(for: endpoint) else {
            return try await next(request, context)
        }
        switch fault {
        case .status(let status):
            return Reply.json(["error": "injected_fault"], status: .init(code: status))
        case .body(let text, let contentType):
            return Self.reply(status: 200, body: text, contentType: contentType)
        case .reply(let status, let text, let contentType):
            return Self.reply(status: status, body: text, contentType: contentType)
        case .oversizedBody(let bytes, let chunked):
            let chunk = ByteBuffer(repeating: UInt8(ascii: " "), count: 64 * 1024)
            let body = ResponseBody(contentLength: chunked ? nil : bytes + 2) { writer in
                try await writer.write(ByteBuffer(string: "{"))
                var sent = 0
                while sent < bytes {
                    let count = min(chunk.readableBytes, bytes - sent)
                    try await writer.write(chunk.getSlice(at: 0, length: count)!)
                    sent += count
                }
                try await writer.write(ByteBuffer(string: "}"))
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
        case .delay(let duration):
            try await Task.sleep(for: duration)
            return try await next(request, context)
        case .delayReply(let duration):
            let response = try await next(request, context)
            try await Task.sleep(for: duration)
            return response
        case .hang:
            await faults.hang(upTo: maxHang)
            return Reply.json(["error": "hang_ended"], status: .serviceUnavailable)
        case .stallBody(let prefix):
            let (faults, maxHang) = (faults, maxHang)
            let body = ResponseBody(contentLength: prefix.utf8.count + 64) { writer in
                try await writer.write(ByteBuffer(string: prefix))
                await faults.hang(upTo: maxHang)
                throw CancellationError()
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
        case .conflict:
            return Reply.json(["error": "conflict"], status: .conflict, headers: [.init("MFP-Conflict")!: "true"])
        case .cutConnection(let prefix):
            let body = ResponseBody(contentLength: prefix.utf8.count + 64) { writer in
                try await writer.write(ByteBuffer(string: prefix))
                throw CancellationError()
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: body)
        }
    }

    private static func reply(status: Int, body: String, contentType: String?) -> Response {
        var response = Response(status: .init(code: status), body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        if let contentType { response.headers[.contentType] = contentType }
        return response
    }
}
