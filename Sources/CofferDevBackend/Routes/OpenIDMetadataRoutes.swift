import Hummingbird

extension DevBackendState {
    /// OpenID Connect Discovery 1.0 at `/oidc/.well-known/openid-configuration`, the same
    /// document as RFC 8414 metadata at `/.well-known/oauth-authorization-server/oidc` (and
    /// appended to the issuer), and the JWKS at `/oidc/jwks`: one RS256 key with its kid.
    func addOpenIDMetadataRoutes<Context: RequestContext>(to router: Router<Context>) {
        let paths = [DevBackendPath.OpenID.discovery, DevBackendPath.OpenID.serverMetadata, DevBackendPath.OpenID.appendedServerMetadata]
        for path in paths {
            router.get(RouterPath(path)) { _, _ -> Response in
                self.statistics.count(\.metadataRequests)
                self.statistics.count(\.discoveryRequests)
                guard let metadata = self.providerMetadata else { return Reply.json(["error": "not_listening"], status: .serviceUnavailable) }
                return Reply.json(metadata)
            }
        }
        router.get(RouterPath(DevBackendPath.OpenID.jwks)) { _, _ -> Response in
            self.statistics.count(\.metadataRequests)
            let key = try await self.signingKeys.current()
            return Reply.json(["keys": [.object(key.jwk)]])
        }
    }

    /// The provider's metadata (OpenID Connect Discovery 1.0 §3, RFC 8414 §2, RFC 9207 §3).
    /// The token and revocation endpoints are the backend's OAuth ones.
    var providerMetadata: [String: JSON]? {
        guard let base = baseURL?.absoluteString, let issuer else { return nil }
        let authMethods: JSON = ["none", "client_secret_basic", "client_secret_post"]
        return [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(base + DevBackendPath.OpenID.authorize),
            "token_endpoint": .string(base + DevBackendPath.token),
            "device_authorization_endpoint": .string(base + DevBackendPath.OpenID.device),
            "revocation_endpoint": .string(base + DevBackendPath.revocation),
            "jwks_uri": .string(base + DevBackendPath.OpenID.jwks),
            "userinfo_endpoint": .string(base + DevBackendPath.OpenID.userinfo),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token", .string(DeviceCodeGrant.grantType)],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "token_endpoint_auth_methods_supported": authMethods,
            "revocation_endpoint_auth_methods_supported": authMethods,
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": .array(configuration.openID.scopes.map(JSON.string)),
            "claims_supported": [
                "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "preferred_username", "name", "email", "email_verified",
            ],
            "prompt_values_supported": ["none", "login"],
            "authorization_response_iss_parameter_supported": true,
        ]
    }
}
