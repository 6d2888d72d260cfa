import Foundation

/// The form of SSO token exchange a backend speaks (docs/protocol.md, "SSO token exchange").
public enum TokenExchangeForm: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Oracle Mobile Hub's form: `GET {base}/mobile/platform/sso/exchange-token` with
    /// `Authorization: Bearer <third-party token>`.
    case omc
    /// RFC 8693: `POST` to `tokenEndpoint` (default: the OAuth token endpoint) with
    /// `grant_type=urn:ietf:params:oauth:grant-type:token-exchange`.
    case rfc8693(tokenEndpoint: URL? = nil, subjectTokenType: String = TokenExchangeForm.accessTokenType)

    /// RFC 8693's token type for an OAuth access token.
    public static let accessTokenType = "urn:ietf:params:oauth:token-type:access_token"
    /// RFC 8693's grant type.
    public static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"

    public var description: String {
        switch self {
        case .omc: "omc"
        case .rfc8693(let endpoint, let type): "rfc8693(tokenEndpoint: \(endpoint?.absoluteString ?? "default"), subjectTokenType: \(type))"
        }
    }
}
