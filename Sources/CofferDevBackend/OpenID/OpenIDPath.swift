extension DevBackendPath {
    /// The OpenID provider's paths (docs/protocol.md section 12). The issuer is the base URL
    /// followed by ``issuer``; the token and revocation endpoints are the OAuth ones.
    package enum OpenID {
        /// The issuer's path below the base URL.
        package static let issuer = "/oidc"
        /// OpenID Connect Discovery 1.0.
        package static let discovery = "/oidc/.well-known/openid-configuration"
        /// RFC 8414 §3, with the well-known part inserted before the issuer's path.
        package static let serverMetadata = "/.well-known/oauth-authorization-server/oidc"
        /// RFC 8414 metadata appended to the issuer, as some servers publish it.
        package static let appendedServerMetadata = "/oidc/.well-known/oauth-authorization-server"
        package static let jwks = "/oidc/jwks"
        package static let authorize = "/oidc/authorize"
        package static let device = "/oidc/device"
        package static let deviceVerify = "/oidc/device/verify"
        package static let deviceApprove = "/oidc/device/approve"
        package static let userinfo = "/oidc/userinfo"
    }
}
