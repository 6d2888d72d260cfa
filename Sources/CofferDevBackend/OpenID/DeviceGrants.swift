import CofferBase
import Foundation

/// Device authorizations in progress (RFC 8628): a device code polled by the client and a user
/// code the user approves or denies.
final class DeviceGrants: Sendable {
    /// One device authorization.
    struct Grant: Sendable {
        let deviceCode: String
        /// As shown: `XXXX-XXXX`.
        let userCode: String
        let clientID: String
        let scope: [String]
        let expiresAt: Date
        /// The current polling interval, in seconds; `slow_down` adds 5 (§3.5).
        var interval: Int
        var lastPoll: Date?
        var decision: Decision = .pending
    }

    /// What the user decided.
    enum Decision: Sendable {
        case pending
        case approved(user: String, at: Date)
        case denied
        /// The tokens were issued; the device code is spent.
        case redeemed

        var isPending: Bool {
            if case .pending = self { true } else { false }
        }
    }

    /// What a poll gets (§3.5).
    enum PollOutcome: Sendable {
        case pending, slowDown, expired, denied
        case approved(Grant, user: String, authTime: Date)
        /// Unknown, spent, or another client's: `invalid_grant`.
        case invalid
    }

    /// What approving or denying a user code did.
    enum DecisionOutcome: Sendable, Equatable {
        case decided, unknown, expired, alreadyDecided
    }

    private let grants = Guarded<[String: Grant]>([:])

    /// Starts a device authorization.
    func start(clientID: String, scope: [String], now: Date, lifetime: TimeInterval, interval: Int) -> Grant {
        let grant = Grant(
            deviceCode: RandomToken.make(bytes: 32), userCode: UserCode.make(), clientID: clientID, scope: scope,
            expiresAt: now.addingTimeInterval(lifetime), interval: interval)
        grants.withLock { grants in
            grants = grants.filter { $0.value.expiresAt.addingTimeInterval(3600) > now }
            grants[grant.deviceCode] = grant
        }
        return grant
    }

    /// The pending, unexpired grant of `userCode` (typed in any case, with or without the dash).
    func pending(userCode: String, at now: Date) -> Grant? {
        guard let code = UserCode.normalized(userCode) else { return nil }
        return grants.withLock { grants in
            grants.values.first { UserCode.normalized($0.userCode) == code && now < $0.expiresAt && $0.decision.isPending }
        }
    }

    /// Approves (`user` given) or denies (`user` nil) the grant of `userCode`.
    func decide(userCode: String, user: String?, at now: Date) -> DecisionOutcome {
        guard let code = UserCode.normalized(userCode) else { return .unknown }
        return grants.withLock { grants in
            guard let key = grants.first(where: { UserCode.normalized($0.value.userCode) == code })?.key else { return .unknown }
            guard now < grants[key]!.expiresAt else { return .expired }
            guard grants[key]!.decision.isPending else { return .alreadyDecided }
            grants[key]!.decision = user.map { .approved(user: $0, at: now) } ?? .denied
            return .decided
        }
    }

    /// A poll of `deviceCode` by `clientID` at `now`.
    func poll(_ deviceCode: String, clientID: String, at now: Date) -> PollOutcome {
        grants.withLock { grants in
            guard var grant = grants[deviceCode], grant.clientID == clientID else { return .invalid }
            if case .redeemed = grant.decision { return .invalid }
            guard now < grant.expiresAt else { return .expired }
            defer { grants[deviceCode] = grant }
            if let last = grant.lastPoll, now.timeIntervalSince(last) < TimeInterval(grant.interval) {
                grant.interval += 5
                grant.lastPoll = now
                return .slowDown
            }
            grant.lastPoll = now
            switch grant.decision {
            case .pending: return .pending
            case .denied: return .denied
            case .redeemed: return .invalid
            case .approved(let user, let at):
                grant.decision = .redeemed
                return .approved(grant, user: user, authTime: at)
            }
        }
    }
}
