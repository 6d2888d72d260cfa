import CofferBase
import Coffer
import Foundation

/// A browser login in progress: authorization code with PKCE on a one-shot loopback redirect
/// (RFC 8252). Show or open ``url``, then ``complete(timeout:)``.
public final class BrowserLogin: Sendable {
    /// The URL to open in the user's browser.
    public let url: URL
    /// The redirect URI sent with the request: `http://127.0.0.1:PORT/callback`, or the
    /// configuration's ``ClientConfiguration/redirectURI``.
    public let redirectURI: String

    private let client: OpenIDClient
    private let listener: LoopbackListener
    private let redirect: AuthorizationRedirect
    private let apiOrigins: [URL]
    private let startedAt: UInt64
    /// The page ``open(with:)`` left for the browser, removed when the login ends.
    private let page = Guarded<RedirectPage?>(nil)

    init(client: OpenIDClient, listener: LoopbackListener, redirect: AuthorizationRedirect, url: URL, apiOrigins: [URL], startedAt: UInt64) {
        self.client = client
        self.listener = listener
        self.redirect = redirect
        self.url = url
        self.redirectURI = listener.redirectURI
        self.apiOrigins = apiOrigins
        self.startedAt = startedAt
    }

    /// Waits for the browser's redirect (up to `timeout`, default the client's
    /// ``ClientConfiguration/loginTimeout``), exchanges the code with its PKCE verifier,
    /// verifies the ID token (issuer, audience, times, nonce, signature) and stores the session
    /// before returning who logged in. Cancelling the task ends the wait.
    public func complete(timeout: Duration? = nil) async throws(AuthError) -> AuthenticatedUser {
        defer { removePage() }
        let code = try await listener.result(timeout: timeout ?? client.configuration.loginTimeout)
        let reply = try await OAuthGrant.authorizationCodeWithPKCE(code: code, redirectURI: redirectURI, codeVerifier: redirect.pkce.verifier)
            .send(to: client.provider.tokenEndpoint, client: client.credentials, transport: client.transport)
        let wantsOpenID = TokenScope(redirect.scope).elements.contains("openid")
        return try await client.finishLogin(
            reply, nonce: wantsOpenID ? redirect.nonce : nil, requireIDToken: wantsOpenID, scope: redirect.scope,
            apiOrigins: apiOrigins, startedAt: startedAt)
    }

    /// Opens ``url`` with `opener`. ``BrowserOpener/defaultBrowser`` is given a page that only
    /// the user can read, never the URL; the page is removed when the login ends.
    public func open(with opener: BrowserOpener = .defaultBrowser) async throws(AuthError) {
        let opened = try await opener.open(url)
        page.withLock { $0 = opened }
    }

    /// Stops waiting for the redirect: ``complete(timeout:)`` throws ``AuthError/cancelled``.
    public func cancel() {
        listener.close()
        removePage()
    }

    private func removePage() {
        page.withLock { page in
            page?.remove()
            page = nil
        }
    }
}

extension OpenIDClient {
    /// The scope a login asks for unless told otherwise: an ID token, the user's profile, and a
    /// refresh token.
    public static let defaultScope = "openid profile offline_access"

    /// Starts a browser login: listens on 127.0.0.1 at a random port (or at the configuration's
    /// ``ClientConfiguration/redirectURI``) and returns the URL to open.
    ///
    /// - Parameters:
    ///   - scope: The scopes to ask for, separated by spaces.
    ///   - apiOrigins: Where the access token may be sent (``OpenIDClient/send(_:)-(HTTPClientRequest)``); default the issuer's
    ///     origin.
    public func startBrowserLogin(scope: String = OpenIDClient.defaultScope, apiOrigins: [URL] = []) async throws(AuthError) -> BrowserLogin {
        guard let endpoint = provider.authorizationEndpoint else {
            throw .invalidRequest(reason: "the provider has no authorization endpoint; use the device flow")
        }
        try TransportSecurity.check(endpoint, allowInsecureHTTP: configuration.allowInsecureHTTP, logger: configuration.logger)
        let holder = RedirectHolder()
        let listener = try await LoopbackListener.start(at: configuration.redirectURI) { items in holder.judge(items) }
        let redirect = AuthorizationRedirect(provider: provider, clientID: clientID, redirectURI: listener.redirectURI, scope: scope)
        holder.set(redirect)
        let url: URL
        do { url = try redirect.authorizationURL(endpoint: endpoint) } catch {
            listener.close()
            throw error
        }
        return BrowserLogin(client: self, listener: listener, redirect: redirect, url: url, apiOrigins: apiOrigins, startedAt: epoch)
    }

    /// Logs in with the browser: starts the login, opens the URL with `opener`, and completes it.
    @discardableResult
    public func logInWithBrowser(
        scope: String = OpenIDClient.defaultScope, apiOrigins: [URL] = [], opener: BrowserOpener = .defaultBrowser, timeout: Duration? = nil
    ) async throws(AuthError) -> AuthenticatedUser {
        let login = try await startBrowserLogin(scope: scope, apiOrigins: apiOrigins)
        do { try await login.open(with: opener) } catch {
            login.cancel()
            throw error
        }
        return try await login.complete(timeout: timeout)
    }
}

/// The redirect rules, which exist only once the listener's port is known.
private final class RedirectHolder: Sendable {
    private let redirect = Guarded<AuthorizationRedirect?>(nil)

    func set(_ value: AuthorizationRedirect) { redirect.withLock { $0 = value } }

    func judge(_ items: [URLQueryItem]) -> LoopbackListener.Verdict {
        redirect.withLock { $0 }?.judge(items) ?? .refuse(status: .serviceUnavailable)
    }
}
