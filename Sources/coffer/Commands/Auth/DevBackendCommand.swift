import ArgumentParser
import CofferAuth
import CofferDevBackend
import Foundation
import Logging

struct DevBackendCommand: AsyncParsableCommand, ReadsDescriptors {
    typealias Defaults = DevBackend.Configuration

    static let configuration = CommandConfiguration(
        commandName: "dev-backend",
        abstract: "Run the development backend on 127.0.0.1 until interrupted.",
        discussion: """
            The first line on stdout is the base URL, for scripts. It serves the HTTP Basic \
            check, the OAuth token endpoint (/oauth2/v1/token: password, client-credentials \
            and RFC 8693 grants), OMC's SSO exchange, revocation (/oauth2/v1/revoke) and \
            GET /protected; a MobileFirst 8 runtime (/mfp/api/..., resources /mfp/protected, \
            /mfp/balance, /mfp/transfer) and a Mobile Client Access server \
            (/imf-authserver/authorization/v1/apps/<tenant>/..., resource /mca/protected). Logs \
            go to stderr, one line per request, without credentials.

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
            These are throwaway development credentials, so the server listens on loopback only: \
            a --host that is not loopback is refused unless --allow-remote is given, and then \
            --user and --oauth-client are required and no default user, client or SSO token is \
            served (the MobileFirst sample checks keep their published answers: do not expose them).
            """)

    @ParentCommand var root: CofferCommand

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

    var cofferRoot: CofferCommand { root }

    func run() async throws {
        guard tokenLifetime > 0, exchangeTokenLifetime > 0 else { throw CLIError.usage("token lifetimes must be positive") }
        let remote = !TransportSecurity.isLoopback(host: host)
        if remote {
            guard allowRemote else {
                throw CLIError.usage("--host \(host) is not a loopback address: the dev backend's credentials are published; add --allow-remote to serve it anyway")
            }
            guard !users.isEmpty, client != nil else {
                throw CLIError.usage("--allow-remote needs --user and --oauth-client: the default user and client are published")
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
        try await DevBackend.run(configuration) { url in
            do { try StandardStreams.printLine(url.absoluteString) } catch { CofferCommand.fail(error) }
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
