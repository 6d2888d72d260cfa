import Coffer
import CofferCommandLine
import FoundationEssentials

/// `git-credential-coffer --profile PROFILE`, configured for a host: git's credentials for it are
/// the fresh access token of a login the agent brokers (docs/agent.md, section 11), as
/// git-credential-oauth answers them: the username (`oauth2` unless git names one), the token as
/// the password, and its `password_expiry_utc`. The refresh token stays in the agent.
struct GitProfileToken {
    let agent: AgentStore
    let profile: String

    /// The answer to `get`.
    func get(_ want: GitCredential) throws -> Data {
        let token = try self.token(refusing: nil)
        var answer = GitCredential()
        answer.username = want.username ?? "oauth2"
        answer.password = Data(token.value.utf8)
        answer.passwordExpiry = UInt64(max(0, token.expiresAt.timeIntervalSince1970.rounded(.down)))
        return try answer.answer(to: [], now: Date())
    }

    /// `erase` (the server refused the password git sent): the agent is told that token was
    /// refused, so that it is not handed out again and the next `get` has a new one.
    func erase(_ refused: GitCredential) throws {
        guard let password = refused.password, let value = String(data: password, encoding: .utf8) else { return }
        _ = try token(refusing: value)
    }

    private func token(refusing refused: String?) throws -> BrokeredToken {
        switch try agent.send(.token(vault: agent.vault, profile: profile, refused: refused)) {
        case .token(let token): return token
        case .tokenFailure(.notLoggedIn): throw CLIError(message: "the agent holds no login of profile \(profile); run `coffer login --profile \(profile)`", exitStatus: .loginNeeded)
        case .tokenFailure(.loginRequired): throw CLIError(message: "the provider refused profile \(profile)'s refresh token; log in again", exitStatus: .refreshRefused)
        case .tokenFailure(let failure): throw CLIError(message: "\(failure)", exitStatus: .unavailable)
        default: throw CLIError(message: "the agent answered another request", exitStatus: .unavailable)
        }
    }
}
