/// Why a run did not reach its end. In every case the child's process group was killed and
/// the child reaped.
package enum ChildRunFailure: Error, Equatable {
    case spawn(ChildSpawnFailure)
    /// The deadline passed.
    case timedOut
    /// ``ChildCancellation/cancel()`` ended it.
    case cancelled
}
