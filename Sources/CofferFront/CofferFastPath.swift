import CofferAgentWire
import CofferThinClient
import Glibc

/// What the thin `coffer` answers itself, through the agent (docs/performance.md, "The thin
/// front programs"): `get SERVICE ACCOUNT`, `delete SERVICE ACCOUNT` (each with `--internet`),
/// `set SERVICE ACCOUNT` (a generic password, the secret on stdin, not a terminal), `list
/// [--service NAME]` and `token [--profile NAME]`, with `--vault` before or after the command.
/// Everything else, and every request the agent does not answer with success, is the full
/// program's (with stdin given back, for a `set`).
enum CofferFastPath {
    /// The exit status of a request answered here; `nil` to hand the invocation on.
    static func answer(_ arguments: [String]) -> Int32? {
        guard let command = ThinArguments(arguments, valued: ["vault", "profile", "service"], flags: ["internet"]),
              let name = command.positionals.first
        else { return nil }
        let itemCommand = command.value("profile") == nil && command.value("service") == nil
        switch (name, command.positionals.count) {
        case ("get", 3) where itemCommand:
            guard let agent = agent(command), let reply = agent.success(.secret, [item(command)]),
                  let secret = try? reply.single(AgentReplyTag.secret.rawValue)
            else { return nil }
            ThinProgram.writeOutput(secret)
            return 0
        case ("delete", 3) where itemCommand:
            guard let agent = agent(command), let reply = agent.success(.remove, [item(command)]),
                  let count = (try? reply.single(AgentReplyTag.count.rawValue)).flatMap({ readInteger($0, as: UInt64.self) }),
                  count > 0
            else { return nil }
            return 0
        case ("set", 3) where itemCommand && command.flags.isEmpty && isatty(STDIN_FILENO) == 0:
            return set(command)
        case ("list", 1) where command.value("profile") == nil && command.flags.isEmpty:
            let query = command.value("service").map { [ThinAgent.field(.queryService, Array($0.utf8))] } ?? []
            guard let agent = agent(command), let reply = agent.success(.listing, query),
                  let text = try? reply.single(AgentReplyTag.secret.rawValue)
            else { return nil }
            ThinProgram.writeOutput(text)
            return 0
        case ("token", 1) where command.flags.isEmpty && command.value("service") == nil:
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

    /// The most `set` reads before it hands on: twice the largest secret a vault takes, so that
    /// the agent refuses a secret too large as the full program would, and the request still
    /// fits one frame.
    static let setInputLimit = AgentMessage.maxBodyBytes / 2

    /// `set SERVICE ACCOUNT`: the bytes on stdin stored exactly, as a plain generic password.
    private static func set(_ command: ThinArguments) -> Int32? {
        guard let agent = agent(command), var input = ThinInput.read(limit: setInputLimit + 1) else { return nil }
        guard input.bytes.count <= setInputLimit,
              agent.success(.set, [item(command), ThinAgent.field(.secret, input.bytes)]) != nil
        else {
            input.giveBack()
            return nil
        }
        input.zero()
        return 0
    }

    private static func agent(_ command: ThinArguments) -> ThinAgent? {
        ThinAgent.forVault(given: command.value("vault"))
    }

    private static func item(_ command: ThinArguments) -> AgentMessage.Field {
        let itemClass = command.flags.contains("internet") ? AgentItemClass.internetPassword : AgentItemClass.genericPassword
        return ThinAgent.field(.id, AgentItemName.encode(itemClass: itemClass, service: command.positionals[1], account: command.positionals[2]))
    }
}
