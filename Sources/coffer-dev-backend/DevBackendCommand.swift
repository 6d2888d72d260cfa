import ArgumentParser
import CofferAuth
import CofferCommandLine
import CofferDevBackend
import Foundation
import Logging

/// `coffer-dev-backend`: `coffer dev-backend` runs it with `dev-backend` and the arguments
/// after it (the root options travel in the environment); run alone, it runs the backend.
@main
struct DevBackendTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer", abstract: ForwardedCommands.devBackend.abstract, version: CofferVersion.current,
        subcommands: [DevBackendCommand.self])

    /// Runs `dev-backend`: named first (as `coffer` forwards it), or implied when run alone, so
    /// that `coffer-dev-backend --help` is the command's own help.
    static func main() async {
        let given = Array(CommandLine.arguments.dropFirst())
        let implied = given.first == DevBackendCommand._commandName || given == ["--version"]
        await CommandLineTool.run(Self.self, arguments: implied ? given : [DevBackendCommand._commandName] + given)
    }
}

struct DevBackendCommand: AsyncParsableCommand {
    typealias Defaults = DevBackend.Configuration

    static let configuration = ForwardedCommands.devBackend.configuration(
        discussion: """
            The first line on stdout is the base URL, for scripts. It serves the HTTP Basic \
            check, the OAuth token endpoint (/oauth2/v1/token: password, client-credentials \
            and RFC 8693 grants), OMC's SSO exchange, revocation (/oauth2/v1/revoke) and \
            GET /protected; a MobileFirst 8 runtime (/mfp/api/..., resources /mfp/protected, \
            /mfp/balance, /mfp/transfer) and a Mobile Client Access server \
            (/imf-authserver/authorization/v1/apps/<tenant>/..., resource /mca/protected); and an \
            OpenID provider whose issuer is <base URL>/oidc. Logs go to stderr, one line per \
            request (method, path, status), without credentials.

            OPENID PROVIDER (issuer <base URL>/oidc)
              /oidc/.well-known/openid-configuration   discovery (also RFC 8414 at
                                                       /.well-known/oauth-authorization-server/oidc)
              /oidc/jwks                               one RS256 key, generated at first use
              /oidc/authorize                          code + PKCE (S256 only); a login form,
                                                       or none with --oidc-auto-approve
              /oauth2/v1/token                         authorization_code, refresh_token (rotated,
                                                       reuse revokes the login), device_code
              /oidc/device, /oidc/device/verify        RFC 8628 device flow and its page
              /oidc/device/approve                     test approval, with --oidc-test-endpoints
              /oidc/userinfo, /oauth2/v1/revoke        UserInfo; RFC 7009 (refresh tokens too)

            DEFAULTS
              backend id   \(Defaults.defaultBackendID)
              user         \(Defaults.defaultUser.name):\(Defaults.defaultUser.password) (also the MCA realm's user)
              OAuth client \(Defaults.defaultClient.id):\(Defaults.defaultClient.secret)
              SSO token    \(Defaults.defaultSSOToken.token) (user \(Defaults.defaultSSOToken.user))
              token lifetime 3600 s; exchanged tokens 21600 s
              MobileFirst  runtime \(MobileFirstConfiguration.defaultRuntime)
                UserLogin        user name = password; 3 attempts, blocked 10 s;
                                 success 60 s, remember-me 120 s
                PinCodeAttempts  PIN 1234; 3 attempts, blocked 60 s; success 60 s
              MCA          tenant \(ClientAccessConfiguration.defaultTenantID), realm \(ClientAccessConfiguration.defaultRealm)
              OpenID       client \(OpenIDClientRegistration.native.id) (public, no secret)
                           client \(OpenIDClientRegistration.confidential.id):\(OpenIDClientRegistration.confidential.secret ?? "")
                           redirect URIs http://127.0.0.1:<any port>/callback and
                           http://[::1]:<any port>/callback;
                           scopes openid profile email offline_access; users as above;
                           codes 60 s, device codes 600 s, poll interval 5 s, ID tokens 3600 s,
                           refresh tokens 30 days
            These are throwaway development credentials, so the server listens on loopback only: \
            a --host that is not loopback is refused unless --allow-remote is given, and then \
            --user and --oauth-client are required and no default user, client or SSO token is \
            served (the MobileFirst sample checks keep their published answers: do not expose them); \
            OpenID clients are then only those given with --oidc-client, and \
            --oidc-auto-approve and --oidc-test-endpoints are refused. The issuer is built from \
            --host as given.
            """)


    @Option(help: "The port (0: any free port).") var port = 0
    @Option(help: "The address to listen on (loopback unless --allow-remote).") var host = "127.0.0.1"
    @Flag(name: .customLong("allow-remote"), help: "Allow a --host that is not loopback; requires --user and --oauth-client.")
    var allowRemote = false
    @Option(name: .customLong("backend-id"), help: ArgumentHelp("The backend id.", valueName: "id"))
    var backendID = Defaults.defaultBackendID
    @Option(name: .customLong("user"), help: ArgumentHelp("A user (repeatable; replaces the default user).", valueName: "name:password"))
    var users: [String] = []
    @Option(name: .customLong("oauth-client"), help: ArgumentHelp("The OAuth client (replaces the default client).", valueName: "id:secret"))
    var client: String?
    @Option(name: .customLong("sso-token"), help: ArgumentHelp("A third-party token the SSO exchange accepts (repeatable).", valueName: "token:user"))
    var ssoTokens: [String] = []
    @Option(name: .customLong("token-lifetime"), help: ArgumentHelp("Access-token lifetime in seconds.", valueName: "seconds"))
    var tokenLifetime: Int = 3600
    @Option(name: .customLong("exchange-token-lifetime"), help: ArgumentHelp("Exchanged-token lifetime in seconds.", valueName: "seconds"))
    var exchangeTokenLifetime: Int = 21_600
    @Option(name: .customLong("oidc-client"), help: ArgumentHelp(
        "An OpenID client, public (no secret) or confidential (repeatable; replaces the default OpenID clients).", valueName: "id[:secret]"))
    var openIDClients: [String] = []
    @Option(name: .customLong("oidc-auto-approve"), help: ArgumentHelp(
        "Approve every valid authorization request at once as this user, with no login form.", valueName: "user"))
    var autoApproveUser: String?
    @Flag(name: .customLong("oidc-test-endpoints"), help: "Serve POST /oidc/device/approve (user_code, user[, deny=1]): approval without a password.")
    var testEndpoints = false
    @Option(name: .customLong("device-interval"), help: ArgumentHelp("The device flow's polling interval in seconds.", valueName: "seconds"))
    var deviceInterval: Int = 5
    @Option(name: .customLong("device-code-lifetime"), help: ArgumentHelp("Device-code lifetime in seconds.", valueName: "seconds"))
    var deviceCodeLifetime: Int = 600


    func run() async throws {
        guard tokenLifetime > 0, exchangeTokenLifetime > 0, deviceCodeLifetime > 0 else { throw CLIError.usage("token lifetimes must be positive") }
        guard (0...3600).contains(deviceInterval) else { throw CLIError.usage("--device-interval must be 0 to 3600 seconds") }
        let remote = !TransportSecurity.isLoopback(host: host)
        if remote {
            guard allowRemote else {
                throw CLIError.usage("--host \(host) is not a loopback address: the dev backend's credentials are published; add --allow-remote to serve it anyway")
            }
            guard !users.isEmpty, client != nil else {
                throw CLIError.usage("--allow-remote needs --user and --oauth-client: the default user and client are published")
            }
            guard autoApproveUser == nil, !testEndpoints else {
                throw CLIError.usage("--oidc-auto-approve and --oidc-test-endpoints sign anyone in: they are refused with --allow-remote")
            }
        }
        var logger = Logger(label: "coffer.dev-backend") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .info
        var configuration = Defaults(
            host: host, port: port, backendID: backendID,
            tokenLifetime: TimeInterval(tokenLifetime), exchangeTokenLifetime: TimeInterval(exchangeTokenLifetime), logger: logger)
        if !users.isEmpty { configuration.users = try Self.pairs(users, "--user") }
        if let client { configuration.clients = try Self.pairs([client], "--oauth-client") }
        if !ssoTokens.isEmpty || remote { configuration.ssoTokens = try Self.pairs(ssoTokens, "--sso-token") }
        if !openIDClients.isEmpty || remote { configuration.openID.clients = try Self.openIDClients(openIDClients) }
        if let autoApproveUser {
            guard configuration.users[autoApproveUser] != nil else { throw CLIError.usage("--oidc-auto-approve names no configured user") }
            configuration.openID.autoApproveUser = autoApproveUser
        }
        configuration.openID.deviceApprovalEndpoint = testEndpoints
        configuration.openID.deviceInterval = deviceInterval
        configuration.openID.deviceCodeLifetime = TimeInterval(deviceCodeLifetime)
        try await DevBackend.run(configuration) { url in
            do { try StandardStreams.printLine(url.absoluteString) } catch { CommandLineTool.fail(error, Self.self) }
        }
    }

    /// Parses `id[:secret]` OpenID clients, each with the loopback callbacks as redirect URIs.
    static func openIDClients(_ items: [String]) throws -> [OpenIDClientRegistration] {
        try items.map { item in
            let parts = item.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard !parts[0].isEmpty, parts.count == 1 || !parts[1].isEmpty else { throw CLIError.usage("--oidc-client takes id or id:secret") }
            return OpenIDClientRegistration(
                id: parts[0], secret: parts.count > 1 ? parts[1] : nil, redirectURIs: OpenIDClientRegistration.loopbackCallbacks)
        }
    }

    /// Parses `name:value` pairs; the value may contain colons.
    static func pairs(_ items: [String], _ option: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for item in items {
            guard let colon = item.firstIndex(of: ":"), colon != item.startIndex else { throw CLIError.usage("\(option) takes name:value") }
            result[String(item[..<colon])] = String(item[item.index(after: colon)...])
        }
        return result
    }
}
