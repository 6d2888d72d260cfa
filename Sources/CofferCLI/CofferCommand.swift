import ArgumentParser
import Coffer
import CofferCommandLine
import Foundation

@main
struct CofferCommand: AsyncParsableCommand, CofferRoot {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "An encrypted keychain for Linux.",
        discussion: """
            The vault is $COFFER_VAULT or --vault, else $XDG_DATA_HOME/coffer/default.vault.
            It opens with a key file (--keyfile or $COFFER_KEYFILE) or a passphrase, read from
            --passphrase-fd N, else $COFFER_PASSPHRASE, else a no-echo prompt on the terminal.
            A vault with a Secret Service or systemd-creds slot and no key file or passphrase given
            opens through that slot alone; --unlock secret-service,passphrase (or
            systemd-creds,passphrase) asks for the passphrase fallback explicitly. A service that
            systemd starts with LoadCredential= opens it with the key in $CREDENTIALS_DIRECTORY
            (--unlock credential, --credential NAME; default coffer-vault-key). $COFFER_TPM2_DEVICE
            names the TPM2 device over the one a systemd-creds slot stores.
            With --backend secret-service, get, set, delete and list use the Secret Service's
            default collection instead of a vault (items secret-tool reads as service/username).
            Secrets never go on the command line: `set` reads stdin and `get` writes stdout.
            """
            // Generated from ExitStatus, for this help and for coffer(1) (scripts/man.sh).
            + "\n\n" + ExitStatus.helpBlock(),
        version: CofferVersion.current,
        subcommands: [
            Init.self, SetCommand.self, Get.self, Delete.self, List.self,
            Passwd.self, Slots.self, RotateKey.self, Check.self, Doctor.self, Import.self, Backup.self,
            AgentCommand.self, UnlockCommand.self, LockCommand.self, PrompterCommandGroup.self,
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
