import ArgumentParser
import CofferCommandLine

/// `coffer`'s stand-in for a command another executable runs (``ForwardedCommands``): it lists
/// the command in `coffer --help` and the completions. ``CofferCommand/main()`` forwards before
/// parsing (``ForwardedInvocation``), so that `coffer login --help` prints the real command's
/// help; a stub runs only for a command line that scan left alone, and forwards it the same way.
struct ForwardStub<Slot: ForwardedSlot>: ParsableCommand {
    static var configuration: CommandConfiguration { Slot.command.configuration() }

    @ParentCommand var root: CofferCommand
    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws {
        let environment = RootOptions.forwardedEnvironment(root.vault, root.storeOptions, root.network)
        try ForwardedInvocation(command: Slot.command, arguments: arguments, environment: environment).run()
    }
}

/// A row of ``ForwardedCommands`` that `coffer` lists as a subcommand.
protocol ForwardedSlot {
    static var command: ForwardedCommand { get }
}

/// The stubs, one for each row of ``ForwardedCommands/all`` that `coffer` does not answer first
/// (``Token`` is that command's own), in the table's order.
enum ForwardStubs {
    enum Login: ForwardedSlot { static var command: ForwardedCommand { ForwardedCommands.login } }
    enum Status: ForwardedSlot { static var command: ForwardedCommand { ForwardedCommands.status } }
    enum Logout: ForwardedSlot { static var command: ForwardedCommand { ForwardedCommands.logout } }
    enum SSOExchange: ForwardedSlot { static var command: ForwardedCommand { ForwardedCommands.ssoExchange } }
    enum Request: ForwardedSlot { static var command: ForwardedCommand { ForwardedCommands.request } }
    enum DevBackend: ForwardedSlot { static var command: ForwardedCommand { ForwardedCommands.devBackend } }

    static let all: [any ParsableCommand.Type] = [
        ForwardStub<Login>.self, Token.self, ForwardStub<Status>.self, ForwardStub<Logout>.self,
        ForwardStub<SSOExchange>.self, ForwardStub<Request>.self, ForwardStub<DevBackend>.self,
    ]
}
