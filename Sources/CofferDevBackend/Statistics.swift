import Synchronization

extension DevBackend {
    /// How many requests of each kind the backend answered: what the single-flight tests and
    /// the benchmark count.
    public struct Statistics: Sendable, Hashable {
        /// Requests to the token endpoint, any grant.
        public var tokenRequests = 0
        /// OMC-form SSO exchanges.
        public var exchangeRequests = 0
        /// HTTP Basic checks.
        public var basicChecks = 0
        /// Revocations.
        public var revocations = 0
        /// Requests to `/protected` and `/anonymous`.
        public var resourceRequests = 0

        public init() {}
    }
}

/// The counters behind ``DevBackend/Statistics``.
final class StatisticsCounter: Sendable {
    private let value = Mutex(DevBackend.Statistics())

    func count(_ field: WritableKeyPath<DevBackend.Statistics, Int> & Sendable) {
        value.withLock { $0[keyPath: field] += 1 }
    }

    var snapshot: DevBackend.Statistics { value.withLock { $0 } }
}
