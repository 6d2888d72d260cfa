import CofferBase

extension DevBackend {
    /// How many requests of each kind the backend answered: what the single-flight tests and
    /// the benchmark count.
    public struct Statistics: Sendable, Hashable {
        /// Requests to the token endpoint, any grant.
        public var tokenRequests = 0
        /// OMC-form SSO exchanges.
        public var exchangeRequests = 0
        /// HTTP Basic checks (`mobile/platform/users/login`).
        public var basicChecks = 0
        /// Mobile Hub current-user requests (`mobile/platform/users/~`).
        public var currentUserRequests = 0
        /// Mobile Hub HTTP Basic logouts (`mobile/platform/users/logout`).
        public var userLogouts = 0
        /// Revocations.
        public var revocations = 0
        /// What each revocation revoked, in order: `refresh` (a refresh token, with its family)
        /// or `other` (an access token, or a token the backend does not know).
        public var revokedKinds: [String] = []
        /// Requests to `/protected` and `/anonymous`, and to the MobileFirst and MCA resources.
        public var resourceRequests = 0
        /// MobileFirst and MCA client registrations.
        public var registrations = 0
        /// MobileFirst re-registrations (`PUT registration/v1/self/{id}`).
        public var registrationUpdates = 0
        /// Signed requests refused: registrations, client assertions and signed codes whose
        /// signature, key or claims were wrong, or that were replayed.
        public var refusedSignatures = 0
        /// MobileFirst preauthorize requests.
        public var preauthorizations = 0
        /// MobileFirst and MCA authorization requests (for a code).
        public var authorizations = 0
        /// Challenges sent, one per security check or realm in a reply.
        public var challenges = 0
        /// MobileFirst and MCA token requests (code exchanges).
        public var codeExchanges = 0
        /// MobileFirst logouts of a security check, and MCA logouts.
        public var checkLogouts = 0
        /// Refresh-token grants at the token endpoint (OAuth and OpenID clients).
        public var refreshRequests = 0
        /// Refresh tokens presented after they had been rotated away (each revoked its family).
        public var refreshReuses = 0
        /// OpenID authorization-code grants at the token endpoint.
        public var openIDCodeExchanges = 0
        /// Requests to the OpenID authorization endpoint (GET and POST).
        public var openIDAuthorizations = 0
        /// RFC 8628 device authorization requests.
        public var deviceAuthorizations = 0
        /// Device-code grants (polls) at the token endpoint.
        public var devicePolls = 0
        /// UserInfo requests.
        public var userinfoRequests = 0
        /// Discovery, RFC 8414 metadata and JWKS requests.
        public var metadataRequests = 0
        /// Discovery and RFC 8414 metadata requests alone.
        public var discoveryRequests = 0

        public init() {}
    }
}

/// The counters behind ``DevBackend/Statistics``.
final class StatisticsCounter: Sendable {
    private let value = Guarded(DevBackend.Statistics())

    func count(_ field: WritableKeyPath<DevBackend.Statistics, Int> & Sendable, by amount: Int = 1) {
        value.withLock { $0[keyPath: field] += amount }
    }

    func record(revokedKind kind: String) {
        value.withLock { $0.revokedKinds.append(kind) }
    }

    var snapshot: DevBackend.Statistics { value.withLock { $0 } }
}
