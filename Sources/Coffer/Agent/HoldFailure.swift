import CofferAgentWire
/// A vault that `agent start --hold` could not open, as status reports it: its path and the
/// one-line reason (never a secret).
package struct HoldFailure: Sendable, Hashable {
    package let path: String
    package let message: String

    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `u32be(len) || path || message`: the pair layout of a query attribute (`AgentRequest.decodePair`).
    var encoded: [UInt8] {
        bigEndian(UInt32(path.utf8.count)) + Array(path.utf8) + Array(message.utf8)
    }

    init?(encoded bytes: [UInt8]) {
        guard let (path, message) = AgentRequest.decodePair(bytes) else { return nil }
        self.init(path: path, message: message)
    }
}
