import Foundation

/// What the user needs to approve a device login (RFC 8628 §3.2): show the verification URI
/// and the user code, or the complete URI (which carries the code) for example as a link.
public struct DeviceAuthorization: Sendable, Hashable {
    /// The code the user types at the verification URI.
    public let userCode: String
    /// Where the user goes, on any device.
    public let verificationURI: URL
    /// The verification URI with the code in it, when the provider gives one.
    public let verificationURIComplete: URL?
    /// When the device code stops working.
    public let expiresAt: Date

    let deviceCode: String
    /// How long to wait between polls, at least ``minimumInterval`` (1 s on loopback); `slow_down` adds 5 s.
    let interval: Duration

    /// The shortest wait between polls: RFC 8628 §3.2's default of 5 s, so a provider that
    /// says `interval: 0` does not make the client poll without pause.
    static let minimumInterval: Double = 5
    /// The shortest wait for a provider on loopback, which only tests and local development run.
    static let minimumLoopbackInterval: Double = 1

    /// Parses and checks the device authorization reply of the provider at `endpoint`.
    static func parse(_ response: HTTPReply, from endpoint: URL, now: Date) throws(AuthError) -> DeviceAuthorization {
        switch response.status {
        case 200: break
        case 400, 401, 403: throw TokenEndpointReply.refusal(response)
        default: throw .serverError(status: response.status)
        }
        let object = try JSONReply.object(response)
        func text(_ name: String) -> String? {
            object[name]?.stringValue.flatMap { $0.isEmpty || $0.utf8.count > TokenReply.maxTokenBytes ? nil : $0 }
        }
        func webURL(_ name: String) -> URL? {
            guard let text = text(name), let url = URL(string: text), ["https", "http"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
            else { return nil }
            return url
        }
        // Some providers (Google) spell it verification_url.
        guard let deviceCode = text("device_code"), let userCode = text("user_code"), userCode.utf8.count <= 128,
              let verificationURI = webURL("verification_uri") ?? webURL("verification_url")
        else { throw .malformedResponse(reason: "the device authorization reply lacks device_code, user_code or verification_uri") }
        guard let expiresIn = object["expires_in"]?.numberValue ?? object["expires_in"]?.stringValue.flatMap(Double.init),
              expiresIn.isFinite, expiresIn > 0, expiresIn <= 86_400
        else { throw .malformedResponse(reason: "the device authorization reply has no usable expires_in") }
        let interval = object["interval"]?.numberValue ?? object["interval"]?.stringValue.flatMap(Double.init) ?? 5
        guard interval.isFinite, interval >= 0, interval <= 3600 else { throw .malformedResponse(reason: "interval is out of range") }
        let floor = TransportSecurity.isLoopback(host: endpoint.host ?? "") ? minimumLoopbackInterval : minimumInterval
        return DeviceAuthorization(
            userCode: userCode, verificationURI: verificationURI, verificationURIComplete: webURL("verification_uri_complete"),
            expiresAt: now.addingTimeInterval(expiresIn), deviceCode: deviceCode, interval: .milliseconds(Int(max(interval, floor) * 1000)))
    }
}

/// A device login in progress (RFC 8628): show ``authorization`` to the user, then ``complete()``.
public final class DeviceLogin: Sendable {
    /// What to show the user.
    public let authorization: DeviceAuthorization

    private let client: OpenIDClient
    private let scope: String
    private let apiOrigins: [URL]
    private let startedAt: UInt64

    init(client: OpenIDClient, authorization: DeviceAuthorization, scope: String, apiOrigins: [URL], startedAt: UInt64) {
        self.client = client
        self.authorization = authorization
        self.scope = scope
        self.apiOrigins = apiOrigins
        self.startedAt = startedAt
    }

    /// Polls the token endpoint at the provider's interval until the user approves: keeps
    /// polling on `authorization_pending`, adds 5 s to the interval on `slow_down`, and ends with
    /// ``AuthError/deviceCodeExpired`` (`expired_token`, or the code's lifetime or the client's
    /// ``ClientConfiguration/loginTimeout`` passed), ``AuthError/accessDenied``, or
    /// ``AuthError/authorizationError(code:)``. Cancelling the task stops it. On approval, the
    /// ID token (if any) is verified and the session stored before this returns.
    public func complete() async throws(AuthError) -> AuthenticatedUser {
        let configuration = client.configuration
        let deadline = min(authorization.expiresAt, configuration.now().addingTimeInterval(configuration.loginTimeout.timeInterval))
        var interval = authorization.interval
        let request = OAuthGrant.deviceCode(authorization.deviceCode).request(to: client.provider.tokenEndpoint, client: client.credentials)
        while true {
            guard configuration.now() < deadline else { throw .deviceCodeExpired }
            do { try await configuration.sleep(interval) } catch { throw .cancelled }
            let response = try await client.transport.send(request)
            if response.status == 200 {
                let reply = try TokenReply.parse(response, requireTokenType: true)
                return try await client.finishLogin(reply, nonce: nil, requireIDToken: false, scope: scope, apiOrigins: apiOrigins, startedAt: startedAt)
            }
            guard [400, 401, 403].contains(response.status) else { throw .serverError(status: response.status) }
            switch TokenEndpointReply.errorCode(response) {
            case "authorization_pending": continue
            case "slow_down": interval += .seconds(5)
            case "expired_token": throw .deviceCodeExpired
            case "access_denied": throw .accessDenied
            case let code?: throw .authorizationError(code: AuthorizationRedirect.errorCode(code))
            case nil: throw TokenEndpointReply.refusal(response)
            }
        }
    }
}

extension OpenIDClient {
    /// Starts a device login: asks the provider for a user code and a verification URI.
    public func startDeviceLogin(scope: String = OpenIDClient.defaultScope, apiOrigins: [URL] = []) async throws(AuthError) -> DeviceLogin {
        guard let endpoint = provider.deviceAuthorizationEndpoint else {
            throw .invalidRequest(reason: "the provider has no device authorization endpoint; use the browser flow")
        }
        let request = BackendRequest.form(
            endpoint, credentials.formPairs([("scope", scope)]), backendID: nil, authorization: credentials.authorizationHeader)
        let authorization = try DeviceAuthorization.parse(try await transport.send(request), from: endpoint, now: now)
        return DeviceLogin(client: self, authorization: authorization, scope: scope, apiOrigins: apiOrigins, startedAt: epoch)
    }

    /// Logs in with the device flow: starts it, hands the codes to `present` (which shows them
    /// and returns), then polls until the user approves.
    @discardableResult
    public func logInWithDevice(
        scope: String = OpenIDClient.defaultScope, apiOrigins: [URL] = [], present: @Sendable (DeviceAuthorization) async -> Void
    ) async throws(AuthError) -> AuthenticatedUser {
        let login = try await startDeviceLogin(scope: scope, apiOrigins: apiOrigins)
        await present(login.authorization)
        return try await login.complete()
    }
}
