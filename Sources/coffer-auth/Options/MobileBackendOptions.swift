import ArgumentParser
import CofferAuth
import CofferCommandLine
import Foundation

/// Where the backend is and how to log in to it.
struct MobileBackendOptions: ParsableArguments {
    @Option(name: .customLong("backend-url"), help: ArgumentHelp("The backend's base URL.", valueName: "url"))
    var url: String?

    @Option(name: .customLong("backend-id"), help: ArgumentHelp("The backend id (Oracle-Mobile-Backend-ID).", valueName: "id"))
    var id: String?

    @Option(name: .customLong("backend-version"), help: ArgumentHelp("The backend version the session is bound to.", valueName: "version"))
    var version: String?

    @Option(name: .customLong("oauth-token-url"), help: ArgumentHelp("OAuth 2.0 token endpoint; without it, HTTP Basic.", valueName: "url"))
    var tokenURL: String?

    @Option(name: .customLong("client-id"), help: ArgumentHelp("The OAuth client id.", valueName: "id"))
    var clientID: String?

    @Option(name: .customLong("client-secret-fd"), help: ArgumentHelp("Read the OAuth client secret from this file descriptor.", valueName: "n"))
    var clientSecretFD: Int32?

    @Option(name: .customLong("revocation-url"), help: ArgumentHelp("The RFC 7009 revocation endpoint, if the backend has one.", valueName: "url"))
    var revocationURL: String?

    @Flag(name: .customLong("rfc8693"), help: "Exchange SSO tokens with RFC 8693 at the token endpoint, not OMC's form.")
    var rfc8693 = false

    /// Whether any backend option was given.
    var isGiven: Bool { url != nil || id != nil }

    /// The backend these options describe. The client secret is read from its descriptor.
    func mobileBackend(network: NetworkOptions) throws -> MobileBackend {
        guard let url, let id else { throw CLIError.usage("--backend-url and --backend-id are required") }
        for text in [url, tokenURL, revocationURL].compactMap({ $0 }) { try network.check(try Self.parse(text)) }
        let authentication: AuthenticationType
        if let tokenURL {
            guard let clientID, let clientSecretFD else {
                throw CLIError.usage("--oauth-token-url needs --client-id and --client-secret-fd")
            }
            let secret = try DescriptorInput.text(clientSecretFD, what: "client secret")
            authentication = .oauth(tokenEndpoint: try Self.parse(tokenURL), clientID: clientID, clientSecret: secret)
        } else {
            authentication = .httpBasic
        }
        return MobileBackend(
            baseURL: try Self.parse(url), backendID: id, version: version, authentication: authentication,
            tokenExchange: rfc8693 ? .rfc8693() : .omc, revocationEndpoint: try revocationURL.map(Self.parse))
    }

    static func parse(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            throw CLIError.usage("not an http(s) URL: \(text)")
        }
        return url
    }
}
