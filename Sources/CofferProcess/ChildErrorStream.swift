/// Where a run's child writes its standard error.
package enum ChildErrorStream: Sendable, Equatable {
    /// Kept, up to a limit, as ``ChildRunOutcome/errorText``.
    case captured
    /// This process's standard error.
    case inherited
    /// `/dev/null`.
    case nullDevice
}
