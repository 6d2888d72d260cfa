import ArgumentParser
import Coffer
import CofferAuth
import CofferCommandLine
import Foundation

/// How `coffer request` reaches a MobileFirst 8 or Mobile Client Access server, and where it
/// gets the answers to their challenges.
struct ChallengeServerOptions: ParsableArguments {
    @Flag(name: .customLong("mobilefirst"), help: "The URL is a resource of a MobileFirst 8 server (the URL's origin).")
    var mobileFirst = false

    @Option(help: ArgumentHelp("The MobileFirst runtime.", valueName: "name"))
    var runtime = MobileFirstDefaults.runtime

    @Option(name: .customLong("mca-tenant"), help: ArgumentHelp("The URL is a resource of a Mobile Client Access app with this tenant id.", valueName: "id"))
    var mcaTenant: String?

    @Option(name: .customLong("mca-auth-url"), help: ArgumentHelp("The MCA authorization server (default: <origin>/imf-authserver).", valueName: "url"))
    var mcaAuthURL: String?

    @Option(name: .customLong("mca-realm"), help: ArgumentHelp("The MCA realm to answer at the terminal.", valueName: "name"))
    var mcaRealm = "customRealm"

    @Option(name: .customLong("application-id"), help: ArgumentHelp("The application id the client registers with.", valueName: "id"))
    var applicationID = "coffer-cli"

    @Option(name: .customLong("answers-json-fd"), help: ArgumentHelp("Read the answers to challenges, as JSON, from this file descriptor.", valueName: "n"))
    var answersFD: Int32?

    @Option(name: .customLong("challenge-timeout"), help: ArgumentHelp("Seconds to wait for an answer to a challenge.", valueName: "seconds"))
    var challengeTimeout = 300

    /// Whether a challenge server was named.
    var isGiven: Bool { mobileFirst || mcaTenant != nil }

    func validate() throws {
        if mobileFirst, mcaTenant != nil { throw ValidationError("--mobilefirst and --mca-tenant exclude each other") }
        if !isGiven, answersFD != nil { throw ValidationError("--answers-json-fd needs --mobilefirst or --mca-tenant") }
        guard challengeTimeout > 0 else { throw ValidationError("--challenge-timeout must be positive") }
    }

    /// The server of `url`: its origin, with the runtime or tenant.
    func server(for url: URL) throws -> ChallengeServer {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw CLIError.usage("not a URL: \(url)") }
        components.path = ""
        components.query = nil
        components.fragment = nil
        guard let origin = components.url else { throw CLIError.usage("not a URL: \(url)") }
        if let mcaTenant {
            return .mobileClientAccess(
                route: origin, tenantID: mcaTenant, authorizationServer: try mcaAuthURL.map(MobileBackendOptions.parse), applicationID: applicationID)
        }
        return .mobileFirst(origin, runtime: runtime, applicationID: applicationID)
    }

    /// A client of `server` whose handlers answer from `--answers-json-fd`, else at the
    /// terminal, else cancel.
    func client(of server: ChallengeServer, profile: AuthProfile) throws -> ChallengeClient {
        let source: any ChallengeAnswerSource
        var names: Set<String>
        if let answersFD {
            let scripted = try ScriptedChallengeAnswers.read(fd: answersFD)
            (source, names) = (scripted, scripted.checks)
        } else {
            source = Terminal.stdinIsTerminal ? TerminalChallengePrompt() : NoChallengeAnswers()
            names = []
        }
        var configuration = profile.configuration
        configuration.loginTimeout = .seconds(challengeTimeout)
        let client = ChallengeClient(server: server, store: profile.keychain.store, configuration: configuration)
        if mcaTenant != nil {
            names.insert(mcaRealm)
            for realm in names { client.registerAuthenticationDelegate(CLIRealmDelegate(source: source), forRealm: realm) }
        } else {
            names.formUnion([MobileFirstDefaults.userLogin, MobileFirstDefaults.pinCode])
            for check in names { client.registerChallengeHandler(CLIChallengeHandler(securityCheck: check, source: source)) }
        }
        return client
    }
}

/// The MobileFirst names the CLI knows without being told.
enum MobileFirstDefaults {
    static let runtime = "mfp"
    static let userLogin = "UserLogin"
    static let pinCode = "PinCodeAttempts"
}
