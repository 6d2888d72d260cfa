import CofferAgentWire
import Glibc

/// Sends requests to the agent: over the process's kept connection when it has one to this agent
/// (``KeptAgentConnection``), else one connection per request; every wait bounded, and nothing
/// sent until the other end has shown it is this user's agent.
package struct AgentClient: Sendable {
    package let path: String
    /// How long one exchange may take. An unlock runs Argon2id in the agent, so this is generous.
    package var timeout: Duration

    package init(path: String, timeout: Duration = .seconds(30)) {
        self.path = path
        self.timeout = timeout
    }

    /// Sends `request` and reads the reply.
    package func send(_ request: AgentRequest) throws(AgentSocket.Unreachable) -> AgentReply {
        if let reply = try KeptAgentConnection.send(request, to: path, timeout: timeout) { return reply }
        let descriptor = try AgentSocket.connect(path: path, timeout: timeout)
        defer { close(descriptor) }
        try AgentSocket.checkPeer(descriptor, path: path)
        // An agent that will not serve this connection (busy) answers and closes at once, maybe
        // before the request is written: its reply still says why.
        let written = AgentSocket.write(request.message, to: descriptor)
        guard written || errno == EPIPE || errno == ECONNRESET else { throw .broken("the agent did not take the request in time") }
        guard let message = AgentSocket.read(from: descriptor) else {
            throw .broken(written ? "the agent did not answer (closed, timed out or sent a malformed reply)" : "the agent closed the connection")
        }
        do {
            return try AgentReply(message, to: request)
        } catch {
            throw .broken("the agent's reply breaks the protocol: \(error)")
        }
    }
}
