import Foundation

/// Answers a device login (RFC 8628 §3.3) as its user would, on the provider's own pages: opens
/// the verification URI, logs in, enters the user code, and approves or denies. Built on
/// ``BrowserPlayer``, so it works for any provider whose pages are plain HTML forms; with
/// django-oauth-toolkit the pages are: login, the user-code form (prefilled from
/// `?user_code=`), the accept/deny form, then a status page ("Device Authorized").
public struct DeviceApprover: Sendable {
    public let username: String
    private let password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// Opens `verificationURI` (the complete one, or the plain one: the code is added as
    /// `?user_code=` and sent in any form that asks for `user_code`), and answers with
    /// `decision`. Returns the last page, which neither redirects nor has a form.
    public func answer(userCode: String, at verificationURI: URL, decision: BrowserPlayer.Decision = .approve) async throws -> BrowserPlayer.Page {
        var start = verificationURI
        if var components = URLComponents(url: verificationURI, resolvingAgainstBaseURL: false),
           !(components.queryItems ?? []).contains(where: { $0.name == "user_code" }) {
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "user_code", value: userCode)]
            start = components.url ?? verificationURI
        }
        let player = BrowserPlayer(username: username, password: password, decision: decision, extraFields: ["user_code": userCode])
        return try await player.walk(from: start)
    }
}
