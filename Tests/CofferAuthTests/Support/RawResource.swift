import AsyncHTTPClient
import CofferAuth
import Foundation

/// A plain GET with a Bearer token, with no client in between: what the server says of a token.
enum RawResource {
    static func get(_ url: URL, token: AccessToken) async throws -> Int {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Authorization", value: "Bearer \(token.value)")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(5))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }
}
