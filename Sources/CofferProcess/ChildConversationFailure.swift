/// Why a turn of a ``ChildConversation`` did not complete. The child is still there: end the
/// conversation (``ChildConversation/end(within:)``) to kill and reap it.
package enum ChildConversationFailure: Error, Equatable {
    /// The conversation's deadline passed.
    case timedOut
    /// ``ChildCancellation/cancel()`` ended it (the child was killed).
    case cancelled
    /// The child no longer reads its standard input: it closed it, or exited.
    case inputClosed
}
