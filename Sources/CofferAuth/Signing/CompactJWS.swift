import Foundation

/// A JSON payload signed with a ``ClientKey``, in JWS compact form (RFC 7515 §7.1):
/// `header.payload.signature`, RS256. The segments are base64url with their `=` padding kept,
/// as the vendors' Android SDKs write them (MobileFirst `WLCertManager`, Mobile Client Access
/// `DefaultJSONSigner`); the signature covers the first two segments exactly as sent.
struct CompactJWS: Sendable, Hashable {
    let header: String
    let payload: String
    let signature: String

    /// The compact serialization.
    var compact: String { "\(header).\(payload).\(signature)" }

    /// `payload` signed with `key`, under `header` (which names the algorithm and the public key).
    static func sign(header: JSONValue, payload: JSONValue, with key: ClientKey) throws(AuthError) -> CompactJWS {
        let encodedHeader = Base64URL.encodePadded(header.compactJSON)
        let encodedPayload = Base64URL.encodePadded(payload.compactJSON)
        let signature = try key.sign(Data("\(encodedHeader).\(encodedPayload)".utf8))
        return CompactJWS(header: encodedHeader, payload: encodedPayload, signature: Base64URL.encodePadded(signature))
    }
}

extension CompactJWS: CustomStringConvertible {
    /// The header only: the payload may carry a grant code.
    var description: String { "CompactJWS(header: \(header), payload: redacted)" }
}
