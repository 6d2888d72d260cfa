import ArgumentParser
import CofferCommandLine
import CofferThinClient
import Glibc

/// A command line that names a forwarded command (``ForwardedCommands``), as `coffer` hands it
/// on: the executable gets the subcommand and the arguments after it, never the root options
/// before it, which travel in the environment (`COFFER_VAULT`, `COFFER_KEYFILE`, …), as git
/// passes its global options to its helpers.
struct ForwardedInvocation {
    let command: ForwardedCommand
    /// The executable's arguments: the subcommand first.
    let arguments: [String]
    /// The root options given before the subcommand, as environment variables.
    let environment: [String: String]

    init(command: ForwardedCommand, arguments: [String], environment: [String: String]) {
        self.command = command
        self.arguments = [command.name] + arguments
        self.environment = environment
    }

    /// The invocation `arguments` (without the program name) make: root options, then a
    /// forwarded command's name (or `help` and its name); `nil` for anything else, and for a
    /// command `coffer` answers first (``ForwardedCommand/answeredByCofferFirst``). Where the
    /// root options end is found by `coffer`'s own option parser, never a hand-kept list.
    init?(_ arguments: [String]) {
        for index in arguments.indices {
            let asksForHelp = arguments[index] == "help" && index + 1 < arguments.endIndex
            guard let command = ForwardedCommands.named(asksForHelp ? arguments[index + 1] : arguments[index]),
                  !command.answeredByCofferFirst, let root = try? RootOptions.parse(Array(arguments[..<index]))
            else { continue }
            self.init(
                command: command, arguments: asksForHelp ? ["--help"] : Array(arguments[(index + 1)...]),
                environment: RootOptions.forwardedEnvironment(root.vault, root.storeOptions, root.network))
            return
        }
        return nil
    }

    /// Runs the command's executable, from `coffer`'s own folder, in place of this process
    /// (`execv`): same pid, descriptors and environment, plus ``environment``.
    func run() throws -> Never {
        let path = try Self.folder() + "/" + command.executable.rawValue
        for (name, value) in environment { setenv(name, value, 1) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        throw CLIError(message: "cannot run \(path): \(reason) (it is installed beside coffer)", exitStatus: .unavailable)
    }

    /// The folder of the running `coffer` executable, from `/proc/self/exe`, where the
    /// executables it runs are (`coffer-auth`, `coffer-dev-backend`, `coffer-agent`). Never the
    /// working folder when that cannot be read: a `coffer-auth` there could be anyone's.
    static func folder() throws -> String {
        switch ExecutableFolder.path() {
        case .success(let folder): return folder
        case .failure(let unknown):
            throw CLIError(
                message: "cannot find the folder coffer runs from (/proc/self/exe: \(unknown.reason)), where coffer-auth and coffer-dev-backend are",
                exitStatus: .unavailable)
        }
    }
}

/// `coffer`'s root options alone, to find where they end before a forwarded command.
struct RootOptions: ParsableArguments {
    @OptionGroup var vault: VaultOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions

    /// The root options given on the command line, as the environment variables that carry
    /// them to a forwarded command.
    static func forwardedEnvironment(_ vault: VaultOptions, _ store: StoreOptions, _ network: NetworkOptions) -> [String: String] {
        vault.forwardedEnvironment.merging(store.forwardedEnvironment) { $1 }.merging(network.forwardedEnvironment) { $1 }
    }
}
