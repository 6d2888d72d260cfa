import Hummingbird
import HummingbirdAuth

/// What a request says about its caller: its `Authorization` header, read by hummingbird-auth's
/// Basic and Bearer parsers, and its backend id.
struct Caller {
    /// Oracle Mobile Hub's header naming the mobile backend (`Oracle-Mobile-Backend-ID`), lower-cased.
    static let backendIDHeader = "oracle-mobile-backend-id"

    let authorization: String?
    let backendID: String?
    /// HTTP Basic credentials (RFC 7617), if the request carries them.
    let basic: BasicAuthentication?
    /// The Bearer token (RFC 6750 §2.1), if the request carries one.
    let bearer: String?

    init(_ request: Request) {
        authorization = request.headers[.authorization]
        backendID = request.headers.first { $0.name.canonicalName == Self.backendIDHeader }?.value
        basic = request.headers.basic
        bearer = request.headers.bearer.map(\.token).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The OAuth client authenticated by HTTP Basic (RFC 6749 §2.3.1: each part form-decoded).
    func client(among clients: [String: String]) -> String? {
        client { clients[$0] }
    }

    /// The client authenticated by HTTP Basic, among those `secretOf` knows the secret of.
    func client(secretOf: (String) -> String?) -> String? {
        guard let basic, let id = URLForm.value(basic.username), let secret = URLForm.value(basic.password),
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
