import ArgumentParser
import CofferAuth
import CofferCommandLine

/// `coffer token` where `coffer` cannot answer it from the agent: a login kept in the vault,
/// refreshed in this process (`coffer`'s own `Token` answers a login the agent holds).
struct TokenCommand: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = TokenOptions.configuration

    @ParentCommand var root: CofferAuthCommand
    @OptionGroup var options: TokenOptions

    var vaultOptions: VaultOptions? { root.vault }

    func run() async throws {
        let client = try root.openIDClient(profile: options.profile.name).client
        let token = try await client.accessToken()
        try options.write(token: token.value, expiresAt: token.expiresAt, scope: options.json ? try await client.scope : nil)
    }
}
