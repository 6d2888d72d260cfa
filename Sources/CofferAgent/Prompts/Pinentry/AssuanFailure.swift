import CofferProcess

/// Why an Assuan conversation stopped before a reply ended.
package enum AssuanFailure: Error, Equatable {
    /// The conversation's deadline passed.
    case timedOut
    /// The caller cancelled it.
    case cancelled
    /// The server closed its output, or stopped reading: it ended, most likely.
    case closed
    /// The server broke the protocol.
    case protocolError(AssuanProtocolError)

    init(_ failure: ChildConversationFailure) {
        switch failure {
        case .timedOut: self = .timedOut
        case .cancelled: self = .cancelled
        case .inputClosed: self = .closed
        }
    }
}
