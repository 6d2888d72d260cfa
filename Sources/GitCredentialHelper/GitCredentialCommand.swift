import ArgumentParser
import Coffer
import CofferCommandLine
import FoundationEssentials

/// `git-credential-coffer`: git's credential helper on a Coffer vault
/// (`git config --global credential.helper coffer`).
struct GitCredentialCommand: ParsableCommand, CredentialHelperRoot {
    static let configuration = CommandConfiguration(
        commandName: "git-credential-coffer",
        abstract: "git's credential helper on a Coffer vault: git config --global credential.helper coffer",
        discussion: """
            git runs it with get, store or erase and the credential on stdin (gitcredentials(7)); \
            capability prints the capabilities it understands. Other operations are ignored.

            The vault is --vault or $COFFER_VAULT, else the default vault; pass options in the \
            helper string: git config credential.helper "coffer --vault ~/work.vault". It is \
            used through the agent when the agent holds it (coffer unlock), else unlocked as \
            coffer does (key file, $COFFER_PASSPHRASE, --passphrase-fd, Secret Service slot), \
            never by asking on the terminal: a vault it cannot unlock gives one line on stderr \
            and no answer, and git goes on to its other helpers or its own prompt.

            Credentials are internet passwords (coffer list shows them), with the fields \
            git-credential-store drops: password_expiry_utc (an expired password is never \
            answered) and oauth_refresh_token, and authtype and credential with the authtype \
            capability. A request with a line longer than 65,535 bytes or a NUL byte is \
            refused whole: nothing answered, nothing stored. A stored credential whose username \
            or secrets hold a newline, carriage return or NUL byte is not answered (exit 65): \
            written out, it would add lines of its own to the answer.

            With --profile PROFILE (configured for a host: git config \
            credential.https://git.example.com.helper "coffer --profile work"), get answers the \
            fresh access token of that OpenID login, which the agent holds (coffer login while the \
            agent holds the vault), as username oauth2 (or git's) and password, with \
            password_expiry_utc; erase tells the agent the server refused it; store keeps nothing. \
            The agent must let git-credential-coffer have the login's tokens (coffer access grant \
            coffer.openid PROFILE PATH-OF-git-credential-coffer, or the vault's policy).
            """,
        version: CofferVersion.current)

    @OptionGroup var vault: VaultOptions
    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("get, store or erase (the credential on stdin), or capability.", valueName: "operation"))
    var operation: String

    @Option(help: ArgumentHelp("Answer with the access token of this OpenID login, which the agent holds.", valueName: "profile"))
    var profile: String?

    func validate() throws {
        if let profile, !AgentRequest.isValidProfile(profile) {
            throw ValidationError("a profile name is 1-64 letters, digits, '.', '_' or '-'")
        }
    }

    /// Runs the helper from its entry point in libCofferCommands.so (``CommandLineTool/runToExit(_:onFailure:)``).
    @MainActor
    static func runFromLibrary() -> Never {
        Terminal.programName = "git-credential-coffer"
        CommandLineTool.runToExit(Self.self)
    }

    func run() throws {
        switch operation {
        case "capability":
            return try StandardStreams.write(Array("version 0\ncapability \(GitCredential.Capability.authType.rawValue)\n".utf8))
        case "get", "store", "erase": break
        default: return  // "it should silently ignore the request" (gitcredentials(7))
        }
        let request: GitCredential
        do {
            request = try GitCredentialReader.read()
        } catch let refusal as GitCredentialReader.Refusal {
            throw CLIError(message: "refused the request: \(refusal); nothing answered or stored", exitStatus: .dataError)
        }
        if let profile { return try answer(request, withTokenOf: profile) }
        switch operation {
        case "get":
            let answer: Data
            do {
                answer = try GitCredentialActions(store: try credentialHelperStore()).get(request)
            } catch let unanswerable as GitCredential.UnanswerableField {
                throw CLIError(message: "\(unanswerable)", exitStatus: .dataError)
            }
            try StandardStreams.write(answer)
        case "store" where GitCredentialActions.keeps(request): try GitCredentialActions(store: try credentialHelperStore()).store(request)
        case "erase" where GitCredentialActions.erases(request): try GitCredentialActions(store: try credentialHelperStore()).erase(request)
        default: break  // nothing to keep or erase: the vault is not even opened
        }
    }

    /// `get` and `erase` with --profile (``GitProfileToken``), through the agent alone.
    private func answer(_ request: GitCredential, withTokenOf profile: String) throws {
        guard operation != "store" else { return }
        guard let agent = Self.agent(behind: try credentialHelperStore()) else {
            throw CLIError(message: "--profile needs the agent holding the vault (coffer agent start, coffer unlock)", exitStatus: .unavailable)
        }
        let tokens = GitProfileToken(agent: agent, profile: profile)
        if operation == "get" { try StandardStreams.write(try tokens.get(request)) } else { try tokens.erase(request) }
    }
}
