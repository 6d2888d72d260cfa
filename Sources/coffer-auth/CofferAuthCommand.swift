import ArgumentParser
import CofferCommandLine

/// `coffer-auth`: the login commands, in an executable of their own so that `coffer` links no
/// networking. `coffer login …` (and token, status, logout, sso-exchange, request) runs it with
/// the same arguments.
@main
struct CofferAuthCommand: AsyncParsableCommand, CofferRoot {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "Coffer's login commands: OpenID providers, mobile backends, MobileFirst and MCA challenges.",
        discussion: "`coffer` runs these as its own subcommands; `coffer --help` has the vault options and exit statuses.",
        version: CofferVersion.current,
        subcommands: [Login.self, TokenCommand.self, Status.self, Logout.self, SSOExchange.self, Request.self])

    @OptionGroup var vault: VaultOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var network: NetworkOptions

    static func main() async {
        await CommandLineTool.run(Self.self)
    }
}
