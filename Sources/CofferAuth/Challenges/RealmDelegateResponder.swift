/// A registered ``AuthenticationDelegate``, seen as a ``ChallengeResponder``: each challenge
/// gets a fresh ``AuthenticationContext``.
struct RealmDelegateResponder: ChallengeResponder {
    let name: String
    let delegate: any AuthenticationDelegate
    let prompt = ChallengePrompt()

    func answer(_ challenge: JSONValue, timeout: Duration) async -> ChallengeAnswer {
        let (name, delegate) = (self.name, self.delegate)
        return await prompt.present(timeout: timeout) { slot in
            delegate.didReceiveAuthenticationChallenge(context: AuthenticationContext(realm: name, slot: slot), challenge: challenge)
        }
    }

    func succeeded(_ success: JSONValue) {
        let (name, delegate) = (self.name, self.delegate)
        prompt.callbacks.enqueue {
            delegate.didReceiveAuthenticationSuccess(context: AuthenticationContext(realm: name, slot: nil), userInfo: success)
        }
    }

    func failed(_ failure: JSONValue) {
        let (name, delegate) = (self.name, self.delegate)
        prompt.callbacks.enqueue {
            delegate.didReceiveAuthenticationFailure(context: AuthenticationContext(realm: name, slot: nil), userInfo: failure)
        }
    }
}
