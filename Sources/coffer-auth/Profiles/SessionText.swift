import CofferAuth
import CofferBase
import CofferCommandLine
import Foundation

/// How the auth commands describe a session on stdout.
enum SessionText {
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// "; token expires at …", or nothing when the session has no token.
    static func expiry(_ date: Date?) -> String {
        guard let date else { return "" }
        return "; token expires at \(timestamp(date)) (in \(Int(date.timeIntervalSinceNow.rounded())) s)"
    }

    /// One line describing `status` for humans.
    static func describe(_ status: SessionStatus) -> String {
        let who = status.userName.map { " as \(TerminalText.escaped($0))" } ?? ""
        let how = status.method.map { " (\($0.rawValue))" } ?? ""
        let backend = status.backend.map { " at \(TerminalText.escaped("\($0)"))" } ?? ""
        if status.isAuthorized { return "authorized\(who)\(how)\(backend)\(expiry(status.tokenExpiresAt))" }
        if status.isBackendMismatch { return "not authorized: the stored session belongs to another backend or version" }
        guard let expired = status.tokenExpiresAt else { return "not logged in" }
        guard status.needsRefresh else {
            return "not authorized\(who)\(how)\(backend): the token expired at \(timestamp(expired)); log in again"
        }
        return "logged in\(who)\(how)\(backend): the token expired at \(timestamp(expired)); "
            + "the next request renews it from the stored session, without the password"
    }

    /// `status --json`: the fields of ``SessionStatus``, and needsRefresh and needsLogin; never a token.
    struct JSON: Encodable {
        let status: SessionStatus

        private enum Keys: String, CodingKey { case needsRefresh, needsLogin }

        func encode(to encoder: any Encoder) throws {
            try status.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(status.needsRefresh, forKey: .needsRefresh)
            try container.encode(status.needsLogin, forKey: .needsLogin)
        }
    }
}
