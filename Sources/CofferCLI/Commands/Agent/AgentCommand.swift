import ArgumentParser
import Coffer
import CofferAgent
import CofferAgentWire
import CofferBase
import CofferCommandLine
import CofferProcess
import FoundationEssentials
import Glibc

struct AgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run the agent that keeps vaults unlocked between commands (like ssh-agent).",
        discussion: """
            `coffer unlock` hands the agent a vault once; later commands use it with no credential. \
            The agent performs the vault operations itself: the vault key never leaves its process. \
            It serves only its own user, on $COFFER_AGENT_SOCKET, else $XDG_RUNTIME_DIR/coffer/agent.sock, \
            else $XDG_STATE_HOME/coffer/run/agent.sock (~/.local/state/coffer/run/agent.sock). \
            No command starts it for you. docs/agent.md has the protocol.
            """,
        subcommands: [Start.self, Stop.self, AgentStatus.self, Share.self, Unshare.self])

    @ParentCommand var root: CofferCommand

    /// The agent's socket path, checked as vault folders are.
    static func socketPath() throws -> String {
        try AgentSocket.path()
    }

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start the agent in the background (or, with --foreground, in this process, for systemd).",
            discussion: """
                Under systemd socket activation (coffer-agent.socket), the agent uses the socket systemd passes. \
                Each --hold VAULT is opened at start with the machine's own credentials, never a person's \
                (--unlock if given, else the service credential in $CREDENTIALS_DIRECTORY and the vault's \
                systemd-creds slots) and held until `coffer lock` or the agent stops, with no idle timeout. \
                A vault that does not open is one line on stderr and in `agent status`; the agent starts anyway. \
                The agent is the executable coffer-agent beside coffer; with --foreground it takes this \
                process's place (its pid and descriptors).
                """)
        @ParentCommand var agent: AgentCommand

        @Flag(help: "Run in this process until stopped, instead of in the background.")
        var foreground = false

        @OptionGroup var daemon: AgentDaemonOptions

        func run() throws {
            let executable = try ForwardedInvocation.folder() + "/coffer-agent"
            let arguments = try agentArguments()
            if foreground { try Self.become(executable, arguments) }
            if let upstream = daemon.upstream {
                // No agent socket: it serves once it has closed its startup report without a word.
                let pid = try startInBackground(executable, arguments, within: 10) { report in Self.closedWithoutAWord(report) }
                return try StandardStreams.printLine("Secret Service started (pid \(pid)) for the share at \(TerminalText.escaped(upstream))")
            }
            let path = try AgentCommand.socketPath()
            if case .agent(let pid, _, _, _)? = try? AgentClient(path: path, timeout: .seconds(2)).send(.ping) {
                throw CLIError.usage("an agent already runs (pid \(pid)) at \(path)")
            }
            // The agent answers once it has tried every --hold vault: each may take up to the
            // systemd-creds timeout.
            let holdTime = Double(daemon.hold.count) * (Double(agent.root.storeOptions.systemdCredentials.timeout.components.seconds) + 2)
            let pid = try startInBackground(executable, arguments, within: 5 + holdTime) { _ in
                guard case .agent(_, _, let failures, _)? = try? AgentClient(path: path, timeout: .seconds(1)).send(.status) else { return false }
                for failure in failures { Terminal.printError(failure.line) }
                return true
            }
            try StandardStreams.printLine("agent started (pid \(pid)) at \(TerminalText.escaped(path))")
        }

        /// Starts `executable ARGUMENTS` in a session of its own and waits until `isReady` (given
        /// the startup report's descriptor) says it serves, at most `seconds`. Returns its pid;
        /// throws the reason it gave when it exits first.
        private func startInBackground(_ executable: String, _ arguments: [String], within seconds: Double, isReady: (Int32) -> Bool) throws -> pid_t {
            // The agent reports why it could not start (the Secret Service's name taken) on a pipe.
            let report: (read: Int32, write: Int32)
            do throws(ChildSpawnFailure) {
                report = try DescriptorPair.pipe()
            } catch {
                throw CLIError(message: "cannot start the agent", exitStatus: .software)
            }
            defer { close(report.read) }
            var environment = SecretVariables.environmentWithout()
            environment[StartupReport.variable] = "\(StartupReport.descriptor)"
            // A session of its own, apart from the terminal that started it.
            let daemon = ChildCommand(executable: executable, arguments: arguments, environment: environment, processGroup: .newSession)
            let spawned = Result { () throws(ChildSpawnFailure) in
                try daemon.spawn(descriptors: [0: .nullDevice, 1: .nullDevice, 2: .nullDevice, StartupReport.descriptor: .copy(report.write)])
            }
            close(report.write)
            guard case .success(let child) = spawned else {
                throw CLIError(message: "cannot start the agent (\(executable))", exitStatus: .software)
            }
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                // Asked before the exit is checked: a child that closed the report and exited is not ready.
                let ready = isReady(report.read)
                if let ending = child.wait(until: .now) {
                    let reason = StartupReport.read(report.read)
                    guard !reason.isEmpty else { throw CLIError(message: "the agent exited at start", exitStatus: .software) }
                    // The agent's own exit status goes with the reason it gave.
                    guard case .exited(let status) = ending else { throw CLIError(message: reason, exitStatus: .software) }
                    throw CLIError(message: reason, exitStatus: ExitStatus(rawValue: status) ?? .software)
                }
                if ready { return child.pid }
                usleep(20_000)
            }
            throw CLIError(message: "the agent did not answer within \(Int(seconds)) s", exitStatus: .timedOut)
        }

        /// Whether the starting agent has closed its startup report without a word: it serves. (A
        /// pipe whose writer closed reads as hung up, and as readable only while it holds a reason.)
        private static func closedWithoutAWord(_ descriptor: Int32) -> Bool {
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&waiting, 1, 0) > 0 else { return false }
            return waiting.revents & Int16(POLLHUP) != 0 && waiting.revents & Int16(POLLIN) == 0
        }

        /// `coffer-agent`'s arguments: the global options that say how --hold vaults are unlocked
        /// and which vault is the Secret Service's login collection, then the agent's own.
        private func agentArguments() throws -> [String] {
            let options = agent.root.storeOptions
            let unlocking = (options.unlock.map { ["--unlock", $0] } ?? []) + (options.credentialName.map { ["--credential", $0] } ?? [])
                + (options.systemdCredsTimeout.map { ["--systemd-creds-timeout", "\($0)"] } ?? [])
            if daemon.upstream != nil {
                // The share's agent decides which vault is served.
                guard agent.root.vault.path == nil else {
                    throw CLIError.usage("--vault does not go with --upstream: the share's agent decides which vault is served")
                }
                return daemon.arguments
            }
            let login = daemon.secretService ? ["--vault", try agent.root.vault.url().path] : []
            return unlocking + login + daemon.arguments
        }

        /// Becomes the agent (`execv`): the same pid (systemd's socket activation names it in
        /// `LISTEN_PID`), descriptors and environment.
        private static func become(_ executable: String, _ arguments: [String]) throws -> Never {
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            execv(executable, argv)
            let reason = String(cString: strerror(errno))
            throw CLIError(message: "cannot run \(executable): \(reason) (it is installed beside coffer)", exitStatus: .unavailable)
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the agent: it forgets every vault and exits.")

        func run() throws {
            let path = try AgentCommand.socketPath()
            let client = AgentClient(path: path, timeout: .seconds(5))
            var pid: pid_t?
            let reply: AgentReply
            do throws(AgentSocket.Unreachable) {
                if case .agent(let agentPID, _, _, _) = try client.send(.ping) { pid = agentPID }
                reply = try client.send(.stop)
            } catch .noAgent, .stale {
                throw CLIError(message: "no agent runs at \(path)", exitStatus: .notFound)
            } catch {
                throw CLIError(error)
            }
            // A share's socket refuses.
            if case .failure(let error) = reply { throw error }
            // The agent has forgotten every vault; wait (briefly) until it has exited, so the
            // next command finds no agent rather than one on its way out, and the names it owned
            // on the session bus are released.
            for _ in 0..<250 {
                let answers = (try? AgentClient(path: path, timeout: .seconds(1)).send(.ping)) != nil
                let exists = pid.map { kill($0, 0) == 0 || errno != ESRCH } ?? false
                guard answers || exists else { break }
                usleep(20_000)
            }
            try StandardStreams.printLine("agent stopped")
        }
    }

    struct AgentStatus: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Say whether the agent runs, and which vaults it holds unlocked (exit \(ExitStatus.notFound.rawValue) when none runs).")

        @Flag(help: "Print JSON: running, pid, socket, vaults (path, id, unlockedAt, expiresAt unless held until stopped, lastUse), holdFailures (path, error), secretService (serving, busClosed or nameLost; absent without --secret-service).")
        var json = false

        func run() throws {
            let path = try AgentCommand.socketPath()
            var report = StatusJSON(running: false, pid: nil, socket: path, vaults: [], holdFailures: [], secretService: nil)
            var secretService: SecretServiceStatus?
            if case .agent(let pid, let vaults, let failures, let service)? = try? AgentClient(path: path, timeout: .seconds(5)).send(.status) {
                secretService = service
                report = StatusJSON(
                    running: true, pid: pid, socket: path, vaults: vaults.map(StatusJSON.Vault.init),
                    holdFailures: failures.map { StatusJSON.HoldFailureJSON(path: $0.path, error: $0.message) }, secretService: service?.name)
            }
            if json {
                try JSONOutput.write(report)
            } else if let pid = report.pid {
                var lines = ["agent running (pid \(pid)) at \(TerminalText.escaped(path))"]
                lines += report.vaults.map { "  \(TerminalText.escaped($0.path)) until \($0.expiresAt?.formatted(.iso8601) ?? "the agent stops")" }
                lines += report.holdFailures.map { "  \(TerminalText.escaped($0.path)) not held: \(TerminalText.escaped($0.error))" }
                if let secretService { lines.append("  Secret Service: \(secretService.summary)") }
                try StandardStreams.write(Array(lines.map { $0 + "\n" }.joined().utf8))
            } else {
                try StandardStreams.printLine("no agent runs at \(TerminalText.escaped(path))")
            }
            if !report.running { throw ExitCode(.notFound) }
        }

        /// `agent status --json`.
        struct StatusJSON: Encodable {
            struct Vault: Encodable {
                let path: String
                let id: String
                let unlockedAt: Date
                /// Absent for a vault held until the agent stops (`--hold`).
                let expiresAt: Date?
                let lastUse: Date

                init(_ held: HeldVaultStatus) {
                    path = held.path
                    id = held.vaultID
                    unlockedAt = held.unlockedAt
                    expiresAt = held.expiresAt
                    lastUse = held.lastUse
                }
            }

            /// A vault `agent start --hold` could not open.
            struct HoldFailureJSON: Encodable {
                let path: String
                let error: String
            }

            let running: Bool
            let pid: Int32?
            let socket: String
            let vaults: [Vault]
            let holdFailures: [HoldFailureJSON]
            /// ``SecretServiceStatus/name``; absent for an agent without `--secret-service`.
            let secretService: String?
        }
    }
}
