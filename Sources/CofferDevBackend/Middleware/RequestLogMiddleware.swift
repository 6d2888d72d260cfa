import Hummingbird

/// Logs one line per request: method, path and status, with Hummingbird's metadata names
/// (`hb.request.method`, `hb.request.path`; scripts/demo-auth.sh counts token requests by them).
/// Never the query, headers or body, which carry codes, tokens, user codes and passwords.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let status: Int
        do {
            let response = try await next(request, context)
            status = response.status.code
            log(request, status: status, context: context)
            return response
        } catch {
            log(request, status: (error as? any HTTPResponseError)?.status.code ?? 500, context: context)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, context: Context) {
        context.logger.info(
            "Request",
            metadata: [
                "hb.request.method": .string(request.method.rawValue), "hb.request.path": .string(request.uri.path),
                "hb.response.status": .stringConvertible(status),
            ])
    }
}
