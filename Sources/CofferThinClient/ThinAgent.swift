import CofferAgentWire
import CofferBase
import Glibc

/// One connection to the user's agent, as ``KeptAgentConnection`` opens it in the full
/// programs: this user's agent (``AgentSocket/checkPeer(_:path:)``), the process identified
/// first while the agent can still read its executable, then made not dumpable
/// (``ProcessHardening``) before any secret arrives.
package final class ThinAgent {
    private let descriptor: Int32
    /// The vault's path as the agent knows it.
    package let vault: String

    nonisolated(unsafe) private static var open: [Int32] = []

    /// How long the connection, the identification and each exchange may take.
    package static let timeout: Duration = .seconds(30)

    /// Connects and identifies, or `nil` when no agent answers, what answers is not this user's
    /// agent, or anything fails: the full program then decides, and says why.
    package init?(vault: String) {
        guard let path = AgentSocket.expectedPath(environment: ThinProgram.environment),
              let descriptor = try? AgentSocket.connect(path: path, timeout: Self.timeout)
        else { return nil }
        self.descriptor = descriptor
        self.vault = vault
        Self.open.append(descriptor)
        guard (try? AgentSocket.checkPeer(descriptor, path: path)) != nil,
              let identified = exchange(AgentMessage(kind: AgentRequestKind.identify.rawValue)),
              identified.kind == AgentReplyKind.ok.rawValue
        else { return nil }
        ProcessHardening.makeNotDumpable()
    }

    /// The agent's reply to `request`; `nil` when the exchange fails.
    package func exchange(_ request: AgentMessage) -> AgentMessage? {
        guard AgentSocket.write(request, to: descriptor) else { return nil }
        return AgentSocket.read(from: descriptor)
    }

    /// The fields of a success reply to `request`; `nil` for any other reply or a failed exchange.
    package func success(_ kind: AgentRequestKind, _ fields: [AgentMessage.Field]) -> AgentMessage? {
        guard let reply = exchange(AgentMessage(kind: kind.rawValue, fields: [Self.field(.vault, Array(vault.utf8))] + fields)),
              reply.kind == AgentReplyKind.ok.rawValue
        else { return nil }
        return reply
    }

    /// A request field.
    package static func field(_ tag: AgentRequestTag, _ value: [UInt8]) -> AgentMessage.Field {
        AgentMessage.Field(tag.rawValue, value)
    }

    /// Closes every connection, before the full program runs: it opens its own.
    static func closeAll() {
        for descriptor in open { close(descriptor) }
        open = []
    }
}
