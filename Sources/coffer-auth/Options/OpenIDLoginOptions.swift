import ArgumentParser
import CofferAuth
import CofferCommandLine
import Foundation

/// `coffer login --issuer URL …`: an OpenID Connect (or OAuth 2.0) login.
struct OpenIDLoginOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Log in to this OpenID provider (its issuer URL); endpoints come from its discovery document.", valueName: "url"))
    var issuer: String?

    @Option(help: ArgumentHelp("The scope to ask for (default: \"openid profile offline_access\").", valueName: "scope"))
    var scope = OpenIDClient.defaultScope

    @Flag(name: .customLong("browser"), help: "Log in in the browser (authorization code with PKCE); the default when $DISPLAY or $WAYLAND_DISPLAY is set.")
    var browser = false

    @Flag(name: .customLong("device"), help: "Log in on another device (device authorization grant); the default otherwise.")
    var device = false

    @Flag(name: .customLong("no-open"), help: "Print the authorization URL instead of opening a browser.")
    var noOpen = false

    @Option(
        name: .customLong("redirect-uri"),
        help: ArgumentHelp(
            "The browser login's redirect URI, for providers that match it exactly: http://127.0.0.1:PORT/PATH, http://[::1]:PORT/PATH or http://localhost:PORT/PATH (default: a random port of 127.0.0.1, /callback).",
            valueName: "uri"))
    var redirectURI: String?

    @Option(help: ArgumentHelp("How long to wait for the login, in seconds (default: 300).", valueName: "seconds"))
    var timeout: Int?

    @Option(name: .customLong("api"), help: ArgumentHelp("An origin the access token may be sent to (repeatable; default: the issuer's).", valueName: "origin"))
    var apiOrigins: [String] = []

    @Option(name: .customLong("authorization-endpoint"), help: ArgumentHelp("The authorization endpoint, when discovery has none.", valueName: "url"))
    var authorizationEndpoint: String?

    @Option(name: .customLong("token-endpoint"), help: ArgumentHelp("The token endpoint: with it, the provider's metadata is not fetched.", valueName: "url"))
    var tokenEndpoint: String?

    @Option(name: .customLong("device-endpoint"), help: ArgumentHelp("The device authorization endpoint, when discovery has none.", valueName: "url"))
    var deviceEndpoint: String?

    @Option(name: .customLong("jwks-uri"), help: ArgumentHelp("The provider's signing keys, when discovery has none.", valueName: "url"))
    var jwksURI: String?

    @OptionGroup var profile: ProfileOption

    func validate() throws {
        if browser, device { throw ValidationError("--browser and --device exclude each other") }
        if redirectURI != nil, device { throw ValidationError("--redirect-uri is for the browser login, not --device") }
        if let timeout, !(1...86_400).contains(timeout) { throw ValidationError("--timeout takes 1 to 86400 seconds") }
    }

    /// The checked --redirect-uri (``ExitStatus/usage`` for anything but a loopback http URI with a port).
    func loopbackRedirectURI() throws -> LoopbackRedirectURI? {
        try redirectURI.map { text throws(AuthError) in try LoopbackRedirectURI(text) }
    }

    /// Whether the browser flow runs: asked for (--browser, --redirect-uri), or the default on a desktop.
    var usesBrowser: Bool {
        if browser || redirectURI != nil { return true }
        if device { return false }
        return Self.hasDisplay
    }

    /// Whether a browser may be opened: a display, and no --no-open.
    var opensBrowser: Bool { !noOpen && Self.hasDisplay }

    /// Whether $DISPLAY or $WAYLAND_DISPLAY names a display.
    private static var hasDisplay: Bool {
        let environment = ProcessInfo.processInfo.environment
        return ["DISPLAY", "WAYLAND_DISPLAY"].contains { !(environment[$0] ?? "").isEmpty }
    }

    /// The provider: from discovery unless --token-endpoint is given, with the endpoints given here
    /// taking precedence. `revocationURL` comes from the shared --revocation-url.
    func provider(revocationURL: String?, network: NetworkOptions, issuer: URL) async throws -> OpenIDProvider {
        var provider: OpenIDProvider
        if let tokenEndpoint {
            provider = OpenIDProvider(issuer: issuer, tokenEndpoint: try url(tokenEndpoint, network))
        } else {
            provider = try await OpenIDProvider.discover(
                issuer: issuer, configuration: AuthProfile.configuration(network: network))
        }
        if let authorizationEndpoint { provider.authorizationEndpoint = try url(authorizationEndpoint, network) }
        if let deviceEndpoint { provider.deviceAuthorizationEndpoint = try url(deviceEndpoint, network) }
        if let jwksURI { provider.jwksURI = try url(jwksURI, network) }
        if let revocationURL { provider.revocationEndpoint = try url(revocationURL, network) }
        return provider
    }

    /// The --api origins as URLs, checked as every other URL is.
    func apiOriginURLs(network: NetworkOptions) throws -> [URL] {
        try apiOrigins.map { try url($0, network) }
    }

    private func url(_ text: String, _ network: NetworkOptions) throws -> URL {
        let url = try MobileBackendOptions.parse(text)
        try network.check(url)
        return url
    }
}
