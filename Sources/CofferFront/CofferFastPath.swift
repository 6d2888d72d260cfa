import CofferAgentWire
import CofferThinClient

/// What the thin `coffer` answers itself, through the agent (docs/performance.md, "The thin
/// front programs"): `get SERVICE ACCOUNT`, `delete SERVICE ACCOUNT` (each with `--internet`) and
/// `token [--profile NAME]`, with `--vault` before or after the command. Everything else, and
/// every request the agent does not answer with success, is the full program's.
enum CofferFastPath {
    /// The exit status of a request answered here; `nil` to hand the invocation on.
    static func answer(_ arguments: [String]) -> Int32? {
        guard let command = ThinArguments(arguments, valued: ["vault", "profile"], flags: ["internet"]),
              let name = command.positionals.first
        else { return nil }
        switch (name, command.positionals.count) {
        case ("get", 3) where command.value("profile") == nil:
            guard let agent = agent(command), let reply = agent.success(.secret, [item(command)]),
                  let secret = try? reply.single(AgentReplyTag.secret.rawValue)
            else { return nil }
            ThinProgram.writeOutput(secret)
            return 0
        case ("delete", 3) where command.value("profile") == nil:
            guard let agent = agent(command), let reply = agent.success(.remove, [item(command)]),
                  let count = (try? reply.single(AgentReplyTag.count.rawValue)).flatMap({ readInteger($0, as: UInt64.self) }),
                  count > 0
            else { return nil }
            return 0
        case ("token", 1) where command.flags.isEmpty:
            let profile = command.value("profile") ?? "default"
            guard let agent = agent(command),
                  let reply = agent.success(.token, [ThinAgent.field(.profile, Array(profile.utf8))]),
                  let token = try? reply.single(AgentReplyTag.accessToken.rawValue)
            else { return nil }
            ThinProgram.writeOutput(token + [0x0A])
            return 0
        default:
            return nil
        }
    }

    private static func agent(_ command: ThinArguments) -> ThinAgent? {
        ThinAgent.forVault(given: command.value("vault"))
    }

    private static func item(_ command: ThinArguments) -> AgentMessage.Field {
        let itemClass = command.flags.contains("internet") ? AgentItemClass.internetPassword : AgentItemClass.genericPassword
        return ThinAgent.field(.id, AgentItemName.encode(itemClass: itemClass, service: command.positionals[1], account: command.positionals[2]))
    }
}
