import Foundation

/// The configuration of one mobile backend: where it is, who it is, and how users log in.
///
/// ```swift
/// let backend = MobileBackend(
///     baseURL: URL(string: "https://mobile.example.com")!,
///     backendID: "3d1f0c2e-…",
///     authentication: .oauth(tokenEndpoint: tokenURL, clientID: "app", clientSecret: secret))
/// ```
///
/// The anonymous key and the client secret are secrets: `description` redacts them.
public struct MobileBackend: Sendable, Hashable, Codable {
    /// The backend's base URL; protected resources live below it.
    public var baseURL: URL
    /// The backend id, sent with every call as `Oracle-Mobile-Backend-ID`.
    public var backendID: String
    /// The backend version. A stored session is bound to it.
    public var version: String?
    /// The anonymous key: `Authorization: Basic <key>` for anonymous access over HTTP Basic.
    public var anonymousKey: String?
    /// How users log in.
    public var authentication: AuthenticationType
    /// Which form of SSO token exchange the backend speaks. Default: ``TokenExchangeForm/omc``.
    public var tokenExchange: TokenExchangeForm
    /// The RFC 7009 revocation endpoint, if the backend offers one. Logout revokes tokens there.
    public var revocationEndpoint: URL?
    /// The OAuth scope to request, if any.
    public var scope: String?
    /// The application key, sent as `Oracle-Mobile-Application-Key` with the Mobile Hub calls and
    /// the authorized requests, when set.
    public var applicationKey: String?
    /// The device id, sent as `Oracle-Mobile-Device-Id` with the Mobile Hub calls and the
    /// authorized requests, when set.
    public var deviceID: String?

    public init(
        baseURL: URL, backendID: String, version: String? = nil, anonymousKey: String? = nil,
        authentication: AuthenticationType, tokenExchange: TokenExchangeForm = .omc,
        revocationEndpoint: URL? = nil, scope: String? = nil, applicationKey: String? = nil, deviceID: String? = nil
    ) {
        self.baseURL = baseURL
        self.backendID = backendID
        self.version = version
        self.anonymousKey = anonymousKey
        self.authentication = authentication
        self.tokenExchange = tokenExchange
        self.revocationEndpoint = revocationEndpoint
        self.scope = scope
        self.applicationKey = applicationKey
        self.deviceID = deviceID
    }

    /// The headers that name the app and the device, when configured.
    var identityHeaders: [(name: String, value: String)] {
        Self.identityHeaders(applicationKey: applicationKey, deviceID: deviceID)
    }

    /// `Oracle-Mobile-Application-Key` and `Oracle-Mobile-Device-Id`, for the values given.
    static func identityHeaders(applicationKey: String?, deviceID: String?) -> [(name: String, value: String)] {
        [(HeaderName.applicationKey, applicationKey), (HeaderName.deviceID, deviceID)].compactMap { name, value in value.map { (name, $0) } }
    }

    /// What a stored session is bound to: base URL, backend id and version.
    public var binding: BackendBinding {
        BackendBinding(baseURL: baseURL, backendID: backendID, version: version)
    }

    /// The OAuth client, when the backend uses OAuth.
    var oauthClient: OAuthClient? {
        guard case .oauth(let tokenEndpoint, let clientID, let clientSecret) = authentication else { return nil }
        return OAuthClient(tokenEndpoint: tokenEndpoint, clientID: clientID, clientSecret: clientSecret)
    }
}

extension MobileBackend: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        var parts = ["baseURL: \(baseURL.absoluteString)", "backendID: \(backendID)"]
        if let version { parts.append("version: \(version)") }
        if anonymousKey != nil { parts.append("anonymousKey: redacted") }
        parts.append("authentication: \(authentication)")
        parts.append("tokenExchange: \(tokenExchange)")
        if let revocationEndpoint { parts.append("revocationEndpoint: \(revocationEndpoint.absoluteString)") }
        if applicationKey != nil { parts.append("applicationKey: redacted") }
        if let deviceID { parts.append("deviceID: \(deviceID)") }
        return "MobileBackend(\(parts.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
