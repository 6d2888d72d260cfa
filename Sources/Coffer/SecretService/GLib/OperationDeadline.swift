import CofferBase
import CLibSecret
import Dispatch
import FoundationEssentials

/// The time limit of one Secret Service operation.
///
/// Every GLib call of the operation gets ``cancellable``; a timer cancels it when the time is
/// up, so each blocking libsecret or GDBus call returns within the limit, whatever the daemon
/// or the bus does.
final class OperationDeadline {
    let cancellable: GObjectReference<GCancellable>
    /// When the operation must be over.
    let instant: ContinuousClock.Instant
    /// A timer source rather than `asyncAfter`: cancelling it releases its handler at once, so
    /// finished operations leave nothing queued behind them.
    private let timer: any DispatchSourceTimer

    init(timeout: Duration) {
        let cancellable = GObjectReference(taking: g_cancellable_new()!)
        self.cancellable = cancellable
        instant = .now + timeout
        timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { g_cancellable_cancel(cancellable.pointer) }
        timer.schedule(deadline: .now() + .nanoseconds(timeout.clampedNanoseconds))
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    /// The cancellable to pass to GLib.
    var pointer: UnsafeMutablePointer<GCancellable> { cancellable.pointer }

    /// Whether the time is up (the cancellable has fired).
    var hasExpired: Bool { g_cancellable_is_cancelled(cancellable.pointer) != 0 || ContinuousClock.now >= instant }

    /// The time left, for GDBus calls that take a timeout of their own: at least 1 ms.
    var remainingMilliseconds: Int32 {
        Int32(clamping: max((instant - .now).clampedMilliseconds, 1))
    }

    /// The time left, for a lock's wait.
    var remaining: Duration { instant - .now }
}
