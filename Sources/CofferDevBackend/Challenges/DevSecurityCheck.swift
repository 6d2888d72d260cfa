import Foundation

/// The development backend's MobileFirst security checks, modelled on the samples'
/// `CredentialsValidationSecurityCheck`s: `UserLogin` (the user name equals the password) and
/// `PinCodeAttempts` (the PIN). Both challenge with `{errorMsg, remainingAttempts}`, count wrong
/// answers and block the client after the last attempt.
enum DevSecurityCheck: String, CaseIterable, Sendable {
    case userLogin = "UserLogin"
    case pinCodeAttempts = "PinCodeAttempts"

    func policy(_ configuration: MobileFirstConfiguration) -> SecurityCheckPolicy {
        switch self {
        case .userLogin: configuration.userLogin
        case .pinCodeAttempts: configuration.pinCodeAttempts
        }
    }

    /// Decides this check for a client in state `state`, with the client's `answer` if it sent
    /// one. An answer is always validated, even when the check is already satisfied: it is a
    /// new login.
    func evaluate(_ state: inout CheckState, answer: JSON?, now: Date, configuration: MobileFirstConfiguration) -> CheckVerdict {
        let policy = policy(configuration)
        if let until = state.blockedUntil {
            guard now >= until else { return .failure(Self.blocked(until: until, now: now)) }
            state = CheckState()
        }
        guard let answer, !answer.isNull else {
            if state.isSatisfied(at: now) { return .satisfied(state.success) }
            let remaining = state.remainingAttempts ?? policy.maxAttempts
            state.remainingAttempts = remaining
            return .challenge(["errorMsg": .null, "remainingAttempts": .number(Double(remaining))])
        }
        switch validate(answer, configuration: configuration) {
        case .success(let user):
            let remembered = answer["rememberMe"]?.boolValue == true ? policy.rememberMeLasts : nil
            state = CheckState(satisfiedUntil: now.addingTimeInterval(remembered ?? policy.successLasts), user: user)
            if let user {
                state.success = ["user": [
                    "id": .string(user), "displayName": .string(user),
                    "authenticatedAt": .number((now.timeIntervalSince1970 * 1000).rounded()), "authenticatedBy": .string(rawValue),
                ]]
            }
            return .satisfied(state.success)
        case .failure(let message):
            let remaining = (state.remainingAttempts ?? policy.maxAttempts) - 1
            state = CheckState(remainingAttempts: remaining)
            guard remaining > 0 else {
                let until = now.addingTimeInterval(policy.blockedFor)
                state.blockedUntil = until
                return .failure(Self.blocked(until: until, now: now))
            }
            return .challenge(["errorMsg": .string(message.text), "remainingAttempts": .number(Double(remaining))])
        }
    }

    /// Why an answer was refused, as the challenge's `errorMsg` says it.
    struct Refusal: Error {
        let text: String
    }

    /// The user the answer authenticates (`UserLogin`), or `nil` for a right PIN; or why it is wrong.
    private func validate(_ answer: JSON, configuration: MobileFirstConfiguration) -> Result<String?, Refusal> {
        switch self {
        case .userLogin:
            guard let name = answer["username"]?.stringValue, let password = answer["password"]?.stringValue,
                  !name.isEmpty, name == password
            else { return .failure(Refusal(text: "Wrong Credentials")) }
            return .success(name)
        case .pinCodeAttempts:
            guard let pin = answer["pin"]?.stringValue else { return .failure(Refusal(text: "Pin code was not provided")) }
            return pin == configuration.pinCode ? .success(nil) : .failure(Refusal(text: "Pin code is not valid."))
        }
    }

    /// MobileFirst's failure for a blocked client, and how long the block still lasts.
    static func blocked(until: Date, now: Date) -> JSON {
        ["failure": "Account blocked", "blockedForSeconds": .number(until.timeIntervalSince(now).rounded(.up))]
    }
}
