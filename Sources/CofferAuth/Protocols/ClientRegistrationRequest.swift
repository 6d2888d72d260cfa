import Foundation

/// Registers a client with a MobileFirst or Mobile Client Access server (docs/protocol.md 8.1):
/// `POST` JSON `{"application": {"id", "version"}, "device": {"platform"}}`, answered 201 (or
/// 200) with `{"client_id", "client_secret"}`.
package enum ClientRegistrationRequest {
    /// The longest client id or secret accepted.
    static let maxLength = 1024

    static func register(at url: URL, server: ChallengeServer, transport: HTTPTransport) async throws(AuthError) -> ClientRegistration {
        let request = BackendRequest.json(url, [
            "application": ["id": .string(server.applicationID), "version": .string(server.applicationVersion)],
            "device": ["platform": "linux"],
        ])
        return try registration(from: try await transport.send(request))
    }

    /// The registration in a reply: 201 (or 200) with a usable `client_id` and `client_secret`.
    package static func registration(from response: HTTPResponse) throws(AuthError) -> ClientRegistration {
        switch response.status {
        case 200, 201:
            let body = try JSONReply.object(response)
            guard let id = body["client_id"]?.stringValue, isUsable(id),
                  let secret = body["client_secret"]?.stringValue, isUsable(secret)
            else { throw .malformedResponse(reason: "the registration reply lacks a usable client_id or client_secret") }
            return ClientRegistration(clientID: id, clientSecret: secret)
        case 400, 401, 403: throw TokenEndpointReply.refusal(response)
        default: throw .serverError(status: response.status)
        }
    }

    private static func isUsable(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength && text.unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) }
    }
}
