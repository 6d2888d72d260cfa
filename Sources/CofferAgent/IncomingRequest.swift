import Coffer

extension IncomingFrame {
    /// The request a complete frame carries, or the error its client is answered with: a body
    /// that is no message, or a message that breaks the protocol.
    func request() throws(CofferError) -> AgentRequest {
        guard let message = message() else { throw .invalidArgument(reason: "a malformed request") }
        do {
            return try AgentRequest(message)
        } catch {
            throw .invalidArgument(reason: "a request that breaks the protocol: \(error)")
        }
    }
}
