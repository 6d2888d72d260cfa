import CofferAuth
import Hummingbird

/// What a request says about its caller: its `Authorization` header and backend id.
struct Caller {
    let authorization: String?
    let backendID: String?

    init(_ request: Request) {
        authorization = request.headers[.authorization]
        let backendIDName = HeaderName.backendID.lowercased()
        backendID = request.headers.first { $0.name.canonicalName == backendIDName }?.value
    }

    /// HTTP Basic credentials, if the request carries them.
    var basic: BasicCredentials? { authorization.flatMap(BasicCredentials.init(headerValue:)) }

    /// The Bearer token (RFC 6750 §2.1), if the request carries one.
    var bearer: String? { authorization.flatMap { AuthorizationScheme.parameter(of: $0, scheme: "Bearer") } }

    /// The OAuth client authenticated by HTTP Basic (RFC 6749 §2.3.1: each part form-decoded).
    func client(among clients: [String: String]) -> String? {
        client { clients[$0] }
    }

    /// The client authenticated by HTTP Basic, among those `secretOf` knows the secret of.
    func client(secretOf: (String) -> String?) -> String? {
        guard let basic, let id = FormEncoding.unescape(Substring(basic.user)),
              let secret = FormEncoding.unescape(Substring(basic.password)),
              let expected = secretOf(id), Secrets.equal(expected, secret)
        else { return nil }
        return id
    }
}

/// Comparisons that take the same time whatever the input.
enum Secrets {
    static func equal(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }
}
