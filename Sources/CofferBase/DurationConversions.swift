import Dispatch

extension Duration {
    /// Whole nanoseconds, clamped to `Int`; negative durations count as zero.
    package var clampedNanoseconds: Int {
        let (seconds, attoseconds) = max(self, .zero).components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? Int.max : Int(clamping: whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue)
    }

    /// Whole milliseconds, clamped to `Int`; negative durations count as zero.
    package var clampedMilliseconds: Int { clampedNanoseconds / 1_000_000 }

    /// The same length for Dispatch timers.
    package var dispatchInterval: DispatchTimeInterval { .nanoseconds(clampedNanoseconds) }
}
