import CofferAuth
import CofferCommandLine
import Foundation

/// The security-check handler `coffer request` registers: it asks its answer source on a
/// thread of its own (a terminal prompt blocks), then answers or cancels.
final class CLIChallengeHandler: SecurityCheckChallengeHandler, @unchecked Sendable {
    let source: any ChallengeAnswerSource

    init(securityCheck: String, source: any ChallengeAnswerSource) {
        self.source = source
        super.init(securityCheck: securityCheck)
    }

    override func handleChallenge(_ challenge: JSONValue) {
        Thread.detachNewThread { [self] in
            if let answer = source.answer(to: challenge, from: securityCheck) { submitChallengeAnswer(answer) } else { cancel() }
        }
    }

    override func handleFailure(_ failure: JSONValue) {
        source.report(failure: failure, from: securityCheck)
    }
}

/// The realm delegate `coffer request` registers: like ``CLIChallengeHandler``; with no answer
/// left it reports a failure (MCA has no cancel).
struct CLIRealmDelegate: AuthenticationDelegate {
    let source: any ChallengeAnswerSource

    func didReceiveAuthenticationChallenge(context: AuthenticationContext, challenge: JSONValue) {
        let source = source
        Thread.detachNewThread {
            if let answer = source.answer(to: challenge, from: context.realm) {
                context.submitAuthenticationChallengeAnswer(answer)
            } else {
                context.submitAuthenticationFailure(["reason": "no answer"])
            }
        }
    }

    func didReceiveAuthenticationFailure(context: AuthenticationContext, userInfo: JSONValue) {
        source.report(failure: userInfo, from: context.realm)
    }
}
