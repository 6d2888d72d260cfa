import ArgumentParser
import CofferAuth
import CofferCommandLine
import Foundation

/// `coffer token` where `coffer` does not answer it itself (`coffer`'s own `Token` answers a
/// login the agent holds): a login kept in the vault, refreshed in this process; or, through
/// the agent, why it holds no login.
struct TokenCommand: AsyncParsableCommand, ReadsDescriptors {
    static let configuration = TokenOptions.configuration

    @ParentCommand var root: CofferAuthCommand
    @OptionGroup var options: TokenOptions

    var vaultOptions: VaultOptions? { root.vault }

    func run() async throws {
        let store = try root.store()
        let token: (value: String, expiresAt: Date, scope: String?)
        if let agent = CofferAuthCommand.agent(behind: store) {
            // The agent holds the login, and alone is asked: the profile's settings are not read
            // here, which a profile's share (`coffer agent share --profile`) would not serve.
            let brokered = try await AgentTokenBroker(agent).token(profile: options.profile.name, refused: nil)
            token = (brokered.value, brokered.expiresAt, brokered.scope)
        } else {
            let client = try root.openIDClient(profile: options.profile.name, store: store).client
            let access = try await client.accessToken()
            token = (access.value, access.expiresAt, options.json ? try await client.scope : nil)
        }
        try options.write(token: token.value, expiresAt: token.expiresAt, scope: token.scope)
    }
}
