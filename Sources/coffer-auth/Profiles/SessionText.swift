import CofferAuth
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
        let renewal = status.isRenewable
            ? "; the next request renews it from the stored session, without the password"
            : "; log in again"
        return "not authorized\(who)\(how)\(backend): the token expired at \(timestamp(expired))\(renewal)"
    }
}
