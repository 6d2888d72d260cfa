import CofferAgentWire
import CofferBase
import Glibc

/// One connection to the user's agent, as ``KeptAgentConnection`` opens it in the full
/// programs: this user's agent (``AgentSocket/checkPeer(_:path:)``), the process identified
/// first while the agent can still read its executable (within ``AgentTimeouts/holds``), then
/// made not dumpable (``ProcessHardening``) before any secret arrives; each request then within
/// ``AgentTimeouts/item``.
package final class ThinAgent {
    private let descriptor: Int32
    /// The vault's path as the agent knows it.
    package let vault: String

    nonisolated(unsafe) private static var open: [Int32] = []

    /// Connects and identifies, or `nil` when no agent answers, what answers is not this user's
    /// agent, or anything fails: the full program then decides, and says why.
    package init?(vault: String) {
        guard let path = AgentSocket.expectedPath(environment: ThinProgram.environment),
              let descriptor = try? AgentSocket.connect(path: path, timeout: AgentTimeouts.holds)
        else { return nil }
        self.descriptor = descriptor
        self.vault = vault
        Self.open.append(descriptor)
        guard (try? AgentSocket.checkPeer(descriptor, path: path)) != nil,
              let identified = try? AgentSocket.exchange(AgentMessage(kind: AgentRequestKind.identify.rawValue), over: descriptor),
              identified.kind == AgentReplyKind.ok.rawValue
        else { return nil }
        ProcessHardening.makeNotDumpable()
        AgentSocket.setTimeout(descriptor, AgentTimeouts.item)
    }

    /// The agent for the vault `--vault` names (`given`, else as ``ThinVaultPath`` finds it),
    /// when it may answer: not with `COFFER_NO_AGENT=1` or a `COFFER_BACKEND` other than the
    /// vault's. `nil` otherwise, or when no agent answers (``init(vault:)``).
    package static func forVault(given: String?) -> ThinAgent? {
        guard ThinProgram.environment("COFFER_NO_AGENT") != "1",
              (ThinProgram.environment("COFFER_BACKEND") ?? "").isEmpty || ThinProgram.environment("COFFER_BACKEND") == "vault"
        else { return nil }
        return ThinVaultPath.resolve(given: given).flatMap(ThinAgent.init(vault:))
    }

    /// The success reply to the request `kind` with `fields` (the vault's path first); `nil` for
    /// any other reply, which the full program then asks for again and reports. An exchange that
    /// fails once the request may have been acted on (the agent died, or timed out) is not asked
    /// again: it ends the process as the full program ends it, status 69 and the reason.
    package func success(_ kind: AgentRequestKind, _ fields: [AgentMessage.Field]) -> AgentMessage? {
        let request = AgentMessage(kind: kind.rawValue, fields: [Self.field(.vault, Array(vault.utf8))] + fields)
        let reply: AgentMessage
        do throws(AgentSocket.Unreachable) {
            reply = try AgentSocket.exchange(request, over: descriptor)
        } catch {
            ThinProgram.fail("storage unavailable: the agent: \(error)", status: Self.unavailableStatus)
        }
        return reply.kind == AgentReplyKind.ok.rawValue ? reply : nil
    }

    /// `ExitStatus.unavailable` (checked equal by the tests).
    package static let unavailableStatus: Int32 = 69

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
