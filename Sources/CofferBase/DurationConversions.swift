import Glibc

extension Duration {
    /// Whole nanoseconds, clamped to `Int`; negative durations count as zero.
    package var clampedNanoseconds: Int {
        let (seconds, attoseconds) = max(self, .zero).components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? Int.max : Int(clamping: whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue)
    }

    /// Whole milliseconds, clamped to `Int`; negative durations count as zero.
    package var clampedMilliseconds: Int { clampedNanoseconds / 1_000_000 }

    /// Whole microseconds as a `timeval` (socket timeouts); negative durations count as zero.
    package var clampedTimeval: timeval {
        let microseconds = clampedNanoseconds / 1_000
        return timeval(tv_sec: microseconds / 1_000_000, tv_usec: microseconds % 1_000_000)
    }

    /// The duration in seconds, as `Date` arithmetic takes it.
    package var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
