import CofferBase

/// The OpenID faults armed for the next replies: one per kind (ID token, authorization
/// redirect, refresh, device poll), each used for a number of replies, then disarmed.
public final class OpenIDFaults: Sendable {
    private struct Armed {
        var fault: OpenIDFault
        var remaining: Int
    }

    private let armed = Guarded<[OpenIDFault.Kind: Armed]>([:])

    init() {}

    /// Applies `fault` to the next `times` replies of its kind, replacing any fault of that kind
    /// already armed.
    public func arm(_ fault: OpenIDFault, times: Int = 1) {
        armed.withLock { $0[fault.kind] = times > 0 ? Armed(fault: fault, remaining: times) : nil }
    }

    /// Disarms every OpenID fault.
    public func disarmAll() {
        armed.withLock { $0.removeAll() }
    }

    /// The faults still armed.
    public var pending: Set<OpenIDFault> {
        armed.withLock { Set($0.values.map(\.fault)) }
    }

    /// The fault for this reply of `kind`, if one is armed; uses it up.
    func take(_ kind: OpenIDFault.Kind) -> OpenIDFault? {
        armed.withLock { armed in
            guard var entry = armed[kind] else { return nil }
            entry.remaining -= 1
            armed[kind] = entry.remaining > 0 ? entry : nil
            return entry.fault
        }
    }
}
