import ArgumentParser
import Coffer
import CofferCommandLine
import Foundation

/// `git-credential-coffer`: git's credential helper on a Coffer vault
/// (`git config --global credential.helper coffer`).
@main
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
            """,
        version: CofferVersion.current)

    @OptionGroup var vault: VaultOptions
    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: ArgumentHelp("get, store or erase (the credential on stdin), or capability.", valueName: "operation"))
    var operation: String

    static func main() async {
        Terminal.programName = "git-credential-coffer"
        await CommandLineTool.run(Self.self)
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
}
