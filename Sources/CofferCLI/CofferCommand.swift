import ArgumentParser
import Coffer
import CofferCommandLine
import FoundationEssentials

struct CofferCommand: AsyncParsableCommand, CofferRoot {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "An encrypted keychain for Linux.",
        // The overview, then the exit statuses (generated from ExitStatus, for this help and for
        // coffer(1): scripts/man.sh); the manual alone gets the long text (CofferHelpText).
        discussion: CofferHelpText.discussionLead + "\n\n" + ExitStatus.helpBlock(),
        version: CofferVersion.current,
        subcommands: [
            Init.self, SetCommand.self, Get.self, Delete.self, List.self,
            Passwd.self, Slots.self, RotateKey.self, Check.self, Doctor.self, Import.self, Backup.self, AccessCommand.self,
            AgentCommand.self, UnlockCommand.self, LockCommand.self, PrompterCommandGroup.self,
        ] + ForwardStubs.all)

    @OptionGroup var vault: VaultOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions

    /// Hands a forwarded command (login, dev-backend…) to its executable, else runs the
    /// command here (``CommandLineTool/runToExit(_:onFailure:)``).
    @MainActor
    static func runFromLibrary() -> Never {
        if let invocation = ForwardedInvocation(Array(CommandLine.arguments.dropFirst())) {
            StandardStreams.prepare()
            do { try invocation.run() } catch { CommandLineTool.fail(error, Self.self) }
        }
        CommandLineTool.runToExit(Self.self)
    }
}
