import Glibc

/// Sends requests to the agent: one connection per request, every wait bounded.
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
        let descriptor = try AgentSocket.connect(path: path)
        defer { close(descriptor) }
        AgentSocket.setTimeout(descriptor, timeout)
        guard AgentSocket.write(request.message, to: descriptor) else { throw .broken("the agent closed the connection") }
        guard let message = AgentSocket.read(from: descriptor) else {
            throw .broken("the agent did not answer (closed, timed out or sent a malformed reply)")
        }
        do {
            return try AgentReply(message, to: request)
        } catch {
            throw .broken("the agent's reply breaks the protocol: \(error)")
        }
    }
}
