import Foundation

/// An OpenID Connect provider, or OAuth 2.0 authorization server: its issuer and endpoints.
///
/// Get one by discovery (``discover(issuer:httpClient:configuration:)``), or give the
/// endpoints yourself when the provider publishes no metadata.
public struct OpenIDProvider: Sendable, Hashable, Codable {
    /// The issuer identifier. ID tokens and RFC 9207 `iss` parameters must name it exactly.
    public let issuer: URL
    /// Where the browser goes to log in (authorization code flow).
    public var authorizationEndpoint: URL?
    /// Where codes, device codes and refresh tokens are exchanged for tokens.
    public var tokenEndpoint: URL
    /// RFC 8628's device authorization endpoint (device flow).
    public var deviceAuthorizationEndpoint: URL?
    /// RFC 7009's revocation endpoint, used at logout.
    public var revocationEndpoint: URL?
    /// The JSON Web Key Set that signs ID tokens. Without it, no ID token is accepted.
    public var jwksURI: URL?
    /// The UserInfo endpoint: who logged in, when a login returns no ID token.
    public var userinfoEndpoint: URL?
    /// The ID-token signing algorithms the provider uses; only asymmetric ones are ever accepted.
    public var idTokenSigningAlgorithms: [String]
    /// Whether the provider puts RFC 9207's `iss` in every authorization response; when it
    /// does, a response without one is refused.
    public var issuerInAuthorizationResponse: Bool

    /// A provider with the endpoints given: for servers that publish no metadata.
    public init(
        issuer: URL, authorizationEndpoint: URL? = nil, tokenEndpoint: URL, deviceAuthorizationEndpoint: URL? = nil,
        revocationEndpoint: URL? = nil, jwksURI: URL? = nil, userinfoEndpoint: URL? = nil,
        idTokenSigningAlgorithms: [String] = ["RS256"], issuerInAuthorizationResponse: Bool = false
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.idTokenSigningAlgorithms = idTokenSigningAlgorithms
        self.issuerInAuthorizationResponse = issuerInAuthorizationResponse
    }
}
