import ArgumentParser
import Coffer
import CofferCommandLine
import Foundation

@main
struct CofferCommand: AsyncParsableCommand, CofferRoot {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "An encrypted keychain for Linux.",
        discussion: CofferHelpText.discussionLead + "\n\n" + """
            EXIT STATUS
              0   ok
              1   item not found
              2   wrong passphrase or key, or the vault or Secret Service collection is locked;
                  a systemd credential that does not open here (another machine's host key,
                  another TPM, a changed PCR, another vault's credential), or no service
                  credential in $CREDENTIALS_DIRECTORY
              3   integrity failure or corrupt vault; check: problems found
              64  usage error or invalid argument
              other failures: 65 data error, 66 no vault, 69 storage, Secret Service or backend
              unavailable, systemd-creds missing or failing, or the TPM2 device unreachable,
              73 vault already exists, 75 timed out (Secret Service, backend, or a TPM that does
              not answer within --systemd-creds-timeout, default 10 s),
              77 insecure permissions, 74 the output cannot be written (stdout closed,
              full or broken), 70 anything else
              login and requests: 4 not logged in, credentials refused, token expired or other
              backend; 5 the backend answered an HTTP error; 6 logout incomplete (the local
              session is removed, a server step failed); 76 a bad reply from the backend
              OpenID logins (login --issuer, token): 10 the provider refused the refresh
              token: log in again; 11 the login was denied, ended by the provider, or its
              device code expired; 12 a reply failed a security check (issuer, ID token)
              challenges (request --mobilefirst, --mca-tenant): 7 a challenge failed
              (the security check or realm refused the answers); 8 blocked after too
              many attempts; 9 the challenge was cancelled or the answers ran out;
              130 the wait was cancelled
            """,
        version: CofferVersion.current,
        subcommands: [
            Init.self, SetCommand.self, Get.self, Delete.self, List.self,
            Passwd.self, Slots.self, RotateKey.self, Check.self, Doctor.self, Import.self, Backup.self,
            AgentCommand.self, UnlockCommand.self, LockCommand.self,
        ] + ForwardStubs.all)

    @OptionGroup var vault: VaultOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions

    /// Hands a forwarded command (login, dev-backend…) to its executable, else runs the
    /// command here (``CommandLineTool/run(_:arguments:)``).
    static func main() async {
        if let invocation = ForwardedInvocation(Array(CommandLine.arguments.dropFirst())) {
            StandardStreams.prepare()
            do { try invocation.run() } catch { CommandLineTool.fail(error, Self.self) }
        }
        await CommandLineTool.run(Self.self)
    }
}
