import Foundation

extension AuthorizationManager {
    /// One authorization flow for `scope`: rounds of challenges answered through the handlers,
    /// until the server grants (then, with `wantsToken`, a token is obtained and stored), a
    /// check fails, or the rounds run out. Every check this flow opens is settled before it
    /// returns, so no parked flow is left waiting.
    func authorize(
        scope: TokenScope, answers firstAnswers: [String: JSONValue], wantsToken: Bool, startedAt started: UInt64
    ) async -> Result<AccessToken?, AuthError> {
        let flow = makeID()
        let result: Result<AccessToken?, AuthError>
        do throws(AuthError) {
            result = .success(try await rounds(scope: scope, answers: firstAnswers, wantsToken: wantsToken, flow: flow, startedAt: started))
            settleOpenChallenges(of: flow) { _ in .succeeded }
        } catch {
            result = .failure(error)
            settleOpenChallenges(of: flow) { check in error.challengedCheck == check ? .failed(error) : .abandoned }
        }
        return result
    }

    private func rounds(
        scope: TokenScope, answers firstAnswers: [String: JSONValue], wantsToken: Bool, flow: UInt64, startedAt started: UInt64
    ) async throws(AuthError) -> AccessToken? {
        var client = try await registration()
        var registeredAgain = false
        var answers = firstAnswers
        var lastChallenged = scope.elements.first ?? "authorization"
        var succeeded: Set<String> = []
        for _ in 0..<max(1, configuration.maxChallengeRounds) {
            if Task.isCancelled { throw .cancelled }
            let round = try await wire.round(scope: scope, answers: answers, client: client, wantsCode: wantsToken, transport: transport)
            answers = [:]
            if let serverTime = round.serverTime { serverClockOffset = serverTime.timeIntervalSince(now) }
            // A check's success is reported once per flow, though later replies repeat it.
            try report(successes: round.successes.filter { !succeeded.contains($0.key) }, flow: flow)
            succeeded.formUnion(round.successes.keys)
            switch round.outcome {
            case .granted(let code):
                settleOpenChallenges(of: flow) { _ in .succeeded }
                guard let code else {
                    guard !wantsToken else { throw .malformedResponse(reason: "the authorization reply carries no code") }
                    return nil
                }
                switch try await wire.token(code: code, client: client, transport: transport, at: nextSigningTime()) {
                case .granted(let grant):
                    return try keep(grant, for: scope, startedAt: started)
                case .unknownClient:
                    client = try await registerAgain(replacing: client, already: &registeredAgain)
                }
            case .failures(let failures):
                throw report(failures: failures, flow: flow)
            case .challenges(let challenges):
                lastChallenged = challenges.keys.sorted()[0]
                answers = try await collectAnswers(to: challenges, flow: flow)
            case .unknownClient:
                client = try await registerAgain(replacing: client, already: &registeredAgain)
            }
        }
        throw .tooManyChallengeRounds(check: lastChallenged)
    }

    /// A new registration after the server said it does not know `client` (MobileFirst's 400
    /// `INVALID_CLIENT_ID`, a 400 from Mobile Client Access): once per flow, as the SDKs do.
    private func registerAgain(replacing client: ClientRegistration, already registeredAgain: inout Bool) async throws(AuthError) -> ClientRegistration {
        guard !registeredAgain else { throw .invalidCredentials }
        registeredAgain = true
        configuration.logger.info("the server no longer knows the client; registering again")
        return try await registration(replacing: client)
    }

    // MARK: Successes and failures

    /// Tells each check's handler about its success, keeps the user it names, and settles the
    /// checks this flow was answering. A check another flow is answering has its prompt
    /// withdrawn: its owner learns the outcome from its own next round.
    private func report(successes: [String: JSONValue], flow: UInt64) throws(AuthError) {
        guard !successes.isEmpty else { return }
        if let user = successes.keys.sorted().lazy.compactMap({ AuthenticatedUser(success: successes[$0]!) }).first {
            try update { $0.user = user }
        }
        for (check, success) in successes {
            registry.responder(for: check)?.succeeded(success)
            guard let open = openChallenges[check] else { continue }
            if open.owner == flow { settle(check, .succeeded) } else { open.responder.prompt.deliver(.abandoned) }
        }
    }

    /// Tells each check's handler about its failure, forgets a user the failed check had
    /// authenticated, and returns the error of the first failed check (by name).
    private func report(failures: [String: JSONValue], flow: UInt64) -> AuthError {
        var errors: [String: AuthError] = [:]
        for (check, failure) in failures {
            registry.responder(for: check)?.failed(failure)
            errors[check] = Self.error(forFailure: failure, of: check)
        }
        if let user = session?.user, let by = user.authenticatedBy, failures[by] != nil {
            do { try update { $0.user = nil } } catch {
                configuration.logger.warning("cannot store the session after a failure", metadata: ["error": "\(error)"])
            }
        }
        settleOpenChallenges(of: flow) { check in errors[check].map { .failed($0) } ?? .abandoned }
        return errors[errors.keys.sorted()[0]]!
    }

    /// A failure reply's error: ``AuthError/blocked(check:retryAfter:)`` when the check is
    /// blocked (`blockedForSeconds`, or MobileFirst's `"failure": "Account blocked"`),
    /// ``AuthError/challengeFailed(check:payload:)`` otherwise.
    static func error(forFailure failure: JSONValue, of check: String) -> AuthError {
        if let seconds = failure["blockedForSeconds"]?.numberValue, seconds.isFinite, seconds >= 0, seconds < 1e9 {
            return .blocked(check: check, retryAfter: Int(seconds.rounded(.up)))
        }
        if failure["failure"]?.stringValue?.caseInsensitiveCompare("Account blocked") == .orderedSame {
            return .blocked(check: check, retryAfter: nil)
        }
        return .challengeFailed(check: check, payload: failure)
    }

    // MARK: Answering challenges

    /// Shows every challenge of a round to its handler at once and collects the answers, all
    /// before the next round. A check that has no handler fails the round before anyone is
    /// prompted; the first challenge that fails (cancelled, timed out, refused) ends the
    /// others' prompts and fails the round.
    ///
    /// Checks another flow is answering are not prompted again (parking): this flow sends the
    /// answers it has, and waits for the other flows' outcomes only when it has nothing else
    /// to send. It first lets go of the checks it holds, so that no two flows wait on each other.
    private func collectAnswers(to challenges: [String: JSONValue], flow: UInt64) async throws(AuthError) -> [String: JSONValue] {
        var mine: [(check: String, challenge: JSONValue, responder: any ChallengeResponder)] = []
        var elsewhere: [String] = []
        for check in challenges.keys.sorted() {
            guard let responder = registry.responder(for: check) else { throw .noHandler(check: check) }
            if let open = openChallenges[check], open.owner != flow { elsewhere.append(check) } else { mine.append((check, challenges[check]!, responder)) }
        }
        configuration.logger.debug("challenged", metadata: ["checks": "\(challenges.keys.sorted().joined(separator: " "))"])
        guard !mine.isEmpty else {
            settleOpenChallenges(of: flow) { _ in .abandoned }
            for check in elsewhere {
                if case .failed(let error) = await park(on: check) { throw error }
                if Task.isCancelled { throw .cancelled }
            }
            return [:]
        }
        // Claimed in one step on the actor: no other flow can prompt these checks now.
        for (check, _, responder) in mine where openChallenges[check] == nil {
            openChallenges[check] = OpenChallenge(owner: flow, responder: responder)
        }
        let timeout = configuration.loginTimeout
        let (answers, failure) = await withTaskGroup(of: (String, Result<JSONValue?, AuthError>).self) { group in
            for (check, challenge, responder) in mine {
                group.addTask { (check, await Self.answer(challenge, of: check, from: responder, timeout: timeout)) }
            }
            var answers: [String: JSONValue] = [:]
            var failure: AuthError?
            for await (check, result) in group {
                switch result {
                case .success(let answer?): answers[check] = answer
                case .success(nil): break
                case .failure(let error):
                    guard failure == nil else { continue }
                    failure = error
                    group.cancelAll()
                }
            }
            return (answers, failure)
        }
        if let failure { throw failure }
        return answers
    }

    /// The handler's answer to one challenge, or why there is none. A withdrawn prompt
    /// (the check succeeded by another way) gives no answer: the next round tells.
    private static func answer(
        _ challenge: JSONValue, of check: String, from responder: any ChallengeResponder, timeout: Duration
    ) async -> Result<JSONValue?, AuthError> {
        switch await responder.answer(challenge, timeout: timeout) {
        case .answer(let answer): .success(answer)
        case .cancelled: .failure(.challengeCancelled(check: check))
        case .failed(let userInfo): .failure(.challengeFailed(check: check, payload: userInfo))
        case .timedOut: .failure(.challengeTimeout(check: check))
        case .abandoned: Task.isCancelled ? .failure(.cancelled) : .success(nil)
        }
    }

    // MARK: Parking

    /// Waits for the outcome of `check`'s open challenge. Returns ``OpenChallenge/Outcome/abandoned``
    /// at once when there is none, and when the waiting task is cancelled.
    func park(on check: String) async -> OpenChallenge.Outcome {
        let id = makeID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<OpenChallenge.Outcome, Never>) in
                guard !Task.isCancelled, openChallenges[check] != nil else { return continuation.resume(returning: .abandoned) }
                openChallenges[check]?.waiters[id] = continuation
            }
        } onCancel: {
            Task { await self.unpark(id, from: check) }
        }
    }

    private func unpark(_ id: UInt64, from check: String) {
        openChallenges[check]?.waiters.removeValue(forKey: id)?.resume(returning: .abandoned)
    }

    /// Ends `check`'s open challenge: every parked flow gets `outcome`, and the check is no
    /// longer challenged.
    func settle(_ check: String, _ outcome: OpenChallenge.Outcome) {
        guard let open = openChallenges.removeValue(forKey: check) else { return }
        open.responder.prompt.end()
        for waiter in open.waiters.values { waiter.resume(returning: outcome) }
    }

    /// Settles every check `flow` is answering, with the outcome `outcome` gives for it.
    func settleOpenChallenges(of flow: UInt64, _ outcome: (String) -> OpenChallenge.Outcome) {
        for (check, open) in openChallenges where open.owner == flow {
            open.responder.prompt.deliver(.abandoned)
            settle(check, outcome(check))
        }
    }
}

extension AuthError {
    /// The security check or realm a challenge error is about.
    var challengedCheck: String? {
        switch self {
        case .challengeFailed(let check, _), .challengeCancelled(let check), .blocked(let check, _), .noHandler(let check),
             .challengeTimeout(let check), .tooManyChallengeRounds(let check):
            check
        default:
            nil
        }
    }
}
