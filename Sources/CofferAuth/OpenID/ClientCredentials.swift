/// An OAuth client as the provider registered it: its id, and its secret when it is a
/// confidential client. Native apps are usually public clients, with no secret (RFC 8252 §8.4).
struct ClientCredentials: Sendable, Hashable {
    let id: String
    let secret: String?

    /// `Authorization: Basic …` for a confidential client (RFC 6749 §2.3.1: each part
    /// form-encoded first); `nil` for a public client.
    var authorizationHeader: String? {
        guard let secret else { return nil }
        return BasicCredentials(user: FormEncoding.escape(id), password: FormEncoding.escape(secret)).headerValue
    }

    /// `pairs`, with `client_id` added for a public client (RFC 6749 §2.3, RFC 8628 §3.1).
    func formPairs(_ pairs: [(String, String)]) -> [(String, String)] {
        secret == nil ? pairs + [("client_id", id)] : pairs
    }
}
