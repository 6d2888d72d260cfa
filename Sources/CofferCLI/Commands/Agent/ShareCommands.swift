import ArgumentParser
import Coffer
import CofferAgentWire
import CofferBase
import CofferCommandLine
import FoundationEssentials

extension AgentCommand {
    struct Share: ParsableCommand, ReadsDescriptors {
        static let configuration = CommandConfiguration(
            abstract: "Serve only the items or the login you name on a socket of their own, for a sandbox or another host.",
            discussion: """
                The agent listens at --socket and serves, from the vault it holds (the default vault, or --vault), \
                only one item (--service with --account), the items of one service (--service), or the items one \
                program owns (--program): generic passwords, or internet passwords with --internet. Read-only unless \
                --read-write. Or, with --profile, no item but the access tokens of a login the agent holds \
                (`coffer token --profile P` through the socket): the agent refreshes them, and the refresh token \
                never crosses the socket. Programs that reach the socket use it as their agent with COFFER_AGENT_SOCKET=PATH \
                (bind it into a bubblewrap sandbox or a container, or forward it with `ssh -R`). Everything else is \
                answered as if it did not exist; nothing manages the agent through it. The share ends after --for \
                (default 1h, at most 24h), on `coffer agent unshare PATH`, or when the agent stops: the socket is \
                removed and its connections closed, and no token is minted through it any more. Its start, its end \
                and every request through it go to the vault's audit log. A share is the person's decision: it \
                needs the vault's credential, read as `coffer unlock` reads it (the key file, else the passphrase \
                from --passphrase-fd, $COFFER_PASSPHRASE or the terminal), unless the vault's policy is open. \
                docs/agent.md, "Sharing".
                """)
        @ParentCommand var agent: AgentCommand

        var vaultOptions: VaultOptions? { agent.root.vault }

        @Option(help: ArgumentHelp("Where the share's socket is made (an absolute or relative path).", valueName: "path"))
        var socket: String

        @Option(help: ArgumentHelp("Share the items of this service (or, with --internet, this server).", valueName: "service"))
        var service: String?

        @Option(help: ArgumentHelp("With --service: share only this account's item.", valueName: "account"))
        var account: String?

        @Flag(help: "With --service: internet passwords (git and docker credentials) rather than generic ones.")
        var internet = false

        @Option(help: ArgumentHelp("Share the items this program owns (its executable's path), instead of a service's.", valueName: "program"))
        var program: String?

        @Option(help: ArgumentHelp(
            "Share the access tokens of this OpenID login (coffer login --profile) instead of items; no item is served.",
            valueName: "profile"))
        var profile: String?

        @Option(name: .customLong("for"), help: ArgumentHelp("How long the share lasts (at most 24h).", valueName: "duration"))
        var lifetime = DurationArgument(argument: "1h")!

        @Flag(name: .customLong("read-write"), help: "Let the share's clients write and delete the items it covers too.")
        var readWrite = false

        func validate() throws {
            guard [service != nil, program != nil, profile != nil].filter({ $0 }).count == 1 else {
                throw ValidationError("name one of --service, --program or --profile")
            }
            guard service != nil || (account == nil && !internet) else { throw ValidationError("--account and --internet go with --service") }
            if let profile {
                guard !readWrite else { throw ValidationError("--read-write goes with items: a profile's share only mints its tokens") }
                guard AgentRequest.isValidProfile(profile) else { throw ValidationError("a profile name is 1-64 letters, digits, '.', '_' or '-'") }
            }
            guard (1...Int(ShareGrant.maxLifetime)).contains(lifetime.seconds) else { throw ValidationError("--for takes 1s to 24h") }
        }

        func run() throws {
            // A vault that does not exist here is the agent's to refuse (a share's socket refuses any share).
            let url = try agent.root.vault.url()
            let vault = (try? VaultPaths.real(url)) ?? url.standardizedFileURL.path
            let socketPath = URL(fileURLWithPath: socket).standardizedFileURL.path
            let scope: ShareGrant.Scope
            if let profile {
                scope = .profile(profile)
            } else if let program {
                scope = .program(try Program(executablePath: try ProgramPaths.real(program, naming: "--program", mustExist: false)))
            } else {
                scope = .service(itemClass: internet ? .internetPassword : .genericPassword, service: service ?? "", account: account)
            }
            // The person's consent, read before the agent is reached: no connection waits on a prompt.
            let credential = try AgentCredential.read(from: agent.root.vault)
            let request = AgentRequest.share(
                vault: vault, socket: socketPath, grant: ShareGrant(scope: scope, readWrite: readWrite), lifetime: UInt32(lifetime.seconds),
                credential: credential)
            try AgentCommand.send(request, vault: vault)
            let until = Date().addingTimeInterval(TimeInterval(lifetime.seconds))
            let what = profile.map { "the tokens of profile \($0)" } ?? (readWrite ? "read-write" : "read-only")
            try StandardStreams.printLine(
                "sharing \(what) at \(TerminalText.escaped(socketPath)) until \(until.formatted(.iso8601)); "
                    + "inside, set COFFER_AGENT_SOCKET to that socket's path")
        }
    }

    struct Unshare: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "End a share at once: its socket is removed and the connections on it closed.")
        @ParentCommand var agent: AgentCommand

        @Argument(help: ArgumentHelp("The share's socket, as given to `coffer agent share --socket`.", valueName: "path"))
        var socket: String

        func run() throws {
            let socketPath = URL(fileURLWithPath: socket).standardizedFileURL.path
            try AgentCommand.send(.unshare(socket: socketPath), vault: nil)
            try StandardStreams.printLine("the share at \(TerminalText.escaped(socketPath)) has ended")
        }
    }

    /// Sends a share or unshare request to the agent, turning each way it can fail into the
    /// command's error.
    static func send(_ request: AgentRequest, vault: String?) throws {
        // An unshare waits for a refresh under way through the share to be stored, which the
        // agent's HTTP client bounds at 30 s (ClientConfiguration.requestTimeout).
        let client = AgentClient(path: try socketPath(), timeout: .seconds(60))
        let reply: AgentReply
        do throws(AgentSocket.Unreachable) {
            reply = try client.send(request)
        } catch .noAgent, .stale {
            throw CLIError(message: "no agent runs: start one with `coffer agent start`", exitStatus: .unavailable)
        } catch {
            throw CLIError(error)
        }
        switch reply {
        case .failure(let error): throw error
        case .notHeld:
            throw CLIError(message: "the agent does not hold \(TerminalText.escaped(vault ?? "the vault")): `coffer unlock` it first", exitStatus: .locked)
        default: return
        }
    }
}
