import ArgumentParser
import CofferAuth
import CofferCommandLine

struct TokenCommand: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = ForwardedCommands.token.configuration(
        discussion: """
            Like `gh auth token`: for scripts, for example curl -H "Authorization: Bearer $(coffer token)". \
            Several commands started together make one refresh between them. Exit status \
            \(ExitStatus.refreshRefused.rawValue) when the provider refused the refresh token: log in again.
            """)

    @ParentCommand var root: CofferAuthCommand
    @OptionGroup var profile: ProfileOption

    var vaultOptions: VaultOptions? { root.vault }

    func run() async throws {
        let token = try await root.openIDClient(profile: profile.name).client.accessToken()
        try StandardStreams.printLine(token.value)
    }
}
