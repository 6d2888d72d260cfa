import Coffer
import CofferAgent
import CofferAgentWire

extension FuzzTarget {
    /// A frame body the agent reads from its socket (docs/agent.md): any bytes must give a
    /// request or a refusal, and a request read must encode back to a frame that reads the same.
    static let agentRequest = FuzzTarget(name: "agent-request") { bytes in
        guard let message = AgentMessage(body: bytes), let request = try? AgentRequest(message) else { return }
        let again = request.message
        guard let reread = AgentMessage(body: Array(again.frame.dropFirst(4))), let second = try? AgentRequest(reread),
              second.message == again
        else { fatalError("agent-request: a request read from a frame does not round-trip") }
    }

    /// A reply body a client reads, as the answer to each kind of request.
    static let agentReply = FuzzTarget(name: "agent-reply") { bytes in
        guard let message = AgentMessage(body: bytes) else { return }
        let id = ItemID.genericPassword(service: "s", account: "a")
        let requests: [AgentRequest] = [
            .ping, .identify, .status, .holds(vault: "/v"), .item(vault: "/v", id: id), .secret(vault: "/v", id: id),
            .remove(vault: "/v", id: id), .items(vault: "/v", query: ItemQuery()), .token(vault: "/v", profile: "default", refused: nil),
            .endLogin(vault: "/v", profile: "default"), .helperGet(vault: "/v", helper: .git, input: SecureBytes(copying: [])),
        ]
        for request in requests { _ = try? AgentReply(message, to: request) }
    }
}
