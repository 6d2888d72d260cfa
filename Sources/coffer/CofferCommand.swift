import ArgumentParser
import Coffer
import CofferAuth
import Foundation

@main
struct CofferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "An encrypted keychain for Linux.",
        discussion: """
            The vault is $COFFER_VAULT or --vault, else $XDG_DATA_HOME/coffer/default.vault.
            It opens with a key file (--keyfile or $COFFER_KEYFILE) or a passphrase, read from
            --passphrase-fd N, else $COFFER_PASSPHRASE, else a no-echo prompt on the terminal.
            A vault with a Secret Service slot and no key file or passphrase given opens through
            the Secret Service alone; --unlock secret-service,passphrase asks for the passphrase
            fallback explicitly.
            With --backend secret-service, get, set, delete and list use the Secret Service's
            default collection instead of a vault (items secret-tool reads as service/username).
            Secrets never go on the command line: `set` reads stdin and `get` writes stdout.

            EXIT STATUS
              0   ok
              1   item not found
              2   wrong passphrase or key, or the vault or Secret Service collection is locked
              3   integrity failure or corrupt vault; check: problems found
              64  usage error or invalid argument
              other failures: 65 data error, 66 no vault, 69 storage, Secret Service or backend
              unavailable, 73 vault already exists, 75 timed out (Secret Service or backend),
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
        subcommands: [
            Init.self, SetCommand.self, Get.self, Delete.self, List.self,
            Passwd.self, Slots.self, RotateKey.self, Check.self, Doctor.self,
            AgentCommand.self, UnlockCommand.self, LockCommand.self,
            Login.self, TokenCommand.self, Status.self, Logout.self, SSOExchange.self, Request.self, DevBackendCommand.self,
        ])

    @OptionGroup var vault: VaultOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions

    /// Runs the command, mapping every error to one line on stderr and its exit status.
    ///
    /// Before anything else: closed standard streams are held by /dev/null, the process is
    /// hardened (``ProcessHardening``), arguments that are not UTF-8 are refused, and every
    /// file descriptor the command names is read, before any vault is opened.
    static func main() async {
        StandardStreams.prepare()
        ProcessHardening.apply()
        do {
            try ArgumentEncoding.check()
            var command = try parseAsRoot()
            let (descriptors, vault) = namedDescriptors(of: command)
            try DescriptorInput.prefetch(descriptors, vault: vault)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            fail(error)
        }
    }

    /// The descriptors `command` reads, and its vault, for ``DescriptorInput/prefetch(_:vault:)``.
    private static func namedDescriptors(of command: ParsableCommand) -> ([Int32], URL?) {
        guard let reader = command as? ReadsDescriptors else { return ([], nil) }
        return (reader.namedDescriptors, try? reader.cofferRoot.vault.url())
    }

    static func fail(_ error: Error) -> Never {
        if let code = error as? ExitCode { Foundation.exit(code.rawValue) }
        if let failure = error as? CommandFailure {
            Terminal.printError(failure.message)
            Foundation.exit(failure.exitStatus)
        }
        let code = exitCode(for: error)
        guard code != .success, !(error is CleanExit) else { exit(withError: error) }
        Terminal.printError("\(message(for: error)) (see 'coffer help')")
        Foundation.exit(code.rawValue)
    }
}
