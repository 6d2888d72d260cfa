import Foundation
import Hummingbird

/// The security checks' verdicts on one request of one client, and what a grant would carry.
struct CheckDecision: Sendable {
    var verdicts: [String: CheckVerdict] = [:]
    /// When the first of the satisfied checks expires.
    var satisfiedUntil: Date?
    /// The user a satisfied `UserLogin` authenticated.
    var user: String?

    var isGranted: Bool {
        verdicts.values.allSatisfy { if case .satisfied = $0 { true } else { false } }
    }

    /// The reply: 403 `{failures, successes}` when a check failed, else 401 `{challenges,
    /// successes}` (with `WWW-Authenticate: MFP-Challenge`) when one challenges, else 200
    /// `{successes}`, with `clockSynchronization`'s `serverTimeStamp` (ms) when `serverTime` is given.
    func reply(statistics: StatisticsCounter, serverTime: Date? = nil) -> Response {
        var successes: [String: JSON] = [:], challenges: [String: JSON] = [:], failures: [String: JSON] = [:]
        for (check, verdict) in verdicts {
            switch verdict {
            case .satisfied(let success): successes[check] = success
            case .challenge(let challenge): challenges[check] = challenge
            case .failure(let failure): failures[check] = failure
            }
        }
        if !failures.isEmpty {
            return Reply.json(["failures": .object(failures), "successes": .object(successes)], status: .forbidden)
        }
        if !challenges.isEmpty {
            statistics.count(\.challenges, by: challenges.count)
            return Reply.json(
                ["challenges": .object(challenges), "successes": .object(successes)], status: .unauthorized,
                headers: [.wwwAuthenticate: "MFP-Challenge"])
        }
        if let serverTime {
            successes["clockSynchronization"] = ["serverTimeStamp": .number((serverTime.timeIntervalSince1970 * 1000).rounded(.down))]
        }
        return Reply.json(["successes": .object(successes)])
    }
}

extension DevBackendState {
    /// The checks a scope names; `nil` when it names one this backend does not have.
    /// `RegisteredClient` needs no check: the client is registered.
    func securityChecks(inScope scope: String?) -> [DevSecurityCheck]? {
        var checks: [DevSecurityCheck] = []
        for element in Set((scope ?? "").split(separator: " ").map(String.init)) where element != MobileFirstConfiguration.registeredClientScope {
            guard let check = DevSecurityCheck(rawValue: element) else { return nil }
            checks.append(check)
        }
        return checks
    }

    /// Decides `checks` for client `clientID`, with its answers; `nil` for an unknown client.
    func decide(_ checks: [DevSecurityCheck], for clientID: String, answers: [String: JSON]) -> CheckDecision? {
        let now = self.now
        return clients.withChecks(of: clientID) { states in
            var decision = CheckDecision()
            for check in checks {
                var state = states[check.rawValue] ?? CheckState()
                decision.verdicts[check.rawValue] = check.evaluate(
                    &state, answer: answers[check.rawValue], now: now, configuration: configuration.mobileFirst)
                states[check.rawValue] = state
                if state.isSatisfied(at: now), let until = state.satisfiedUntil {
                    decision.satisfiedUntil = min(decision.satisfiedUntil ?? until, until)
                    decision.user = decision.user ?? state.user
                }
            }
            return decision
        }
    }

    /// The query parameters of `request` (form-decoded); the first of a repeated one.
    func query(_ request: Request) -> [String: String] {
        let pairs = URLForm.pairs(request.uri.query ?? "") ?? []
        return Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// `redirectURI` with `parameters` added to its query.
    func redirect(to redirectURI: String, _ parameters: [(String, String)]) -> Response {
        let separator = redirectURI.contains("?") ? "&" : "?"
        return Response(status: .found, headers: [.location: redirectURI + separator + URLForm.encode(parameters)])
    }
}
