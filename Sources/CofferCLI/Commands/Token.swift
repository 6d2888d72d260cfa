import ArgumentParser
import Coffer
import CofferCommandLine

/// `coffer token`, answered here when the agent holds the vault (one request, no networking in
/// this process; the agent, or a share of the profile, says when it holds no such login);
/// handed on to `coffer-auth` otherwise, which refreshes a login kept in the vault.
struct Token: ParsableCommand, UsesAgentForItems {
    static let configuration = TokenOptions.configuration

    @ParentCommand var root: CofferCommand
    @OptionGroup var options: TokenOptions

    var itemRoot: any CofferRoot { root }

    func run() throws {
        guard let agent = try root.agentStore() else { try handOn() }
        switch try agent.send(.token(vault: agent.vault, profile: options.profile.name, refused: nil)) {
        case .token(let token):
            try options.write(token: token.value, expiresAt: token.expiresAt, scope: token.scope)
        case .tokenFailure(let failure):
            throw failure
        default:
            throw CofferError.storageUnavailable(reason: "the agent answered another request")
        }
    }

    private func handOn() throws -> Never {
        try ForwardedInvocation(
            command: ForwardedCommands.token, arguments: options.arguments,
            environment: RootOptions.forwardedEnvironment(root.vault, root.storeOptions, root.network)
        ).run()
    }
}
