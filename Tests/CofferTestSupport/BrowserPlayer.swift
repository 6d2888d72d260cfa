import Foundation
import Synchronization

/// Plays the user's browser through a login on loopback: follows redirects (relative ones
/// too), keeps cookies, fills in and submits the first HTML form of each page, until the
/// provider redirects to the app's redirect URI, which it then opens, as a browser would.
///
/// It is generic, so it works for any server whose pages are plain HTML forms
/// (django-oauth-toolkit, Coffer's dev backend):
/// - A form with a password field is a login form: fields named like a user name (`username`,
///   `user`, `login`, `email`, …) get the user name, password fields the password. Hidden
///   fields (CSRF tokens, `next`) are sent as they are.
/// - Another form is a question (consent, device approval): its hidden fields are sent with
///   the submit button that ``Decision`` picks: for ``Decision/approve`` one named or labelled
///   like allow, authorize, accept, approve, …; for ``Decision/deny`` one like deny, cancel,
///   reject, … (an unnamed one sends nothing, which is how a "Cancel" button says no).
/// - `extraFields` replace fields of the same name, and are added to every form that lacks them.
///
/// A player is one browser: its cookies last across plays, so a second login finds the
/// session of the first (use a new player for a fresh browser).
public final class BrowserPlayer: Sendable {
    /// How a question page is answered.
    public enum Decision: Sendable {
        case approve
        case deny
    }

    /// A page where a walk ended.
    public struct Page: Sendable {
        public let url: URL
        public let status: Int
        public let body: String
        /// The page's text, without tags.
        public var text: String { HTMLForm.plainText(body) }
    }

    /// What the app's redirect URI answered, and the redirect itself.
    public struct Callback: Sendable {
        /// The URL the provider redirected to: the redirect URI with `code`, `state`, `iss` or `error`.
        public let url: URL
        /// What the app's listener answered.
        public let status: Int
        public let body: String

        /// The redirect's query parameters (the last of a repeated one).
        public var parameters: [String: String] {
            var result: [String: String] = [:]
            for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { result[item.name] = item.value ?? "" }
            return result
        }
    }

    /// Why a play stopped.
    public enum Failure: Error, CustomStringConvertible {
        /// A page neither redirected nor had a form (an error page, say).
        case stuck(status: Int, url: String, text: String, trace: [String])
        /// The login form came back after the credentials were sent.
        case loginRefused(text: String, trace: [String])
        case tooManySteps(trace: [String])

        public var description: String {
            switch self {
            case .stuck(let status, let url, let text, let trace):
                "the browser is stuck at \(url) (HTTP \(status)): \(text.prefix(300)); steps: \(trace.joined(separator: ", "))"
            case .loginRefused(let text, let trace):
                "the login form came back: \(text.prefix(300)); steps: \(trace.joined(separator: ", "))"
            case .tooManySteps(let trace): "too many steps: \(trace.joined(separator: ", "))"
            }
        }
    }

    public let username: String
    private let password: String
    public let decision: Decision
    public let extraFields: [String: String]
    public let maxSteps: Int

    private struct State {
        /// Cookies by host (lowercased), then by name.
        var cookies: [String: [String: String]] = [:]
        var trace: [String] = []
    }

    private let state = Mutex(State())

    public init(username: String, password: String, decision: Decision = .approve, extraFields: [String: String] = [:], maxSteps: Int = 30) {
        self.username = username
        self.password = password
        self.decision = decision
        self.extraFields = extraFields
        self.maxSteps = maxSteps
    }

    /// The requests made so far, as `METHOD path → status` (no queries or bodies: they hold codes).
    public var trace: [String] { state.withLock { $0.trace } }

    /// Whether the player holds a cookie named `name` for `host`.
    public func hasCookie(_ name: String, host: String = "127.0.0.1") -> Bool {
        state.withLock { $0.cookies[host.lowercased()]?[name] != nil }
    }

    /// Opens `url` (an authorization request, as ``BrowserLogin`` gives it), logs in and answers
    /// questions until the server redirects to `redirectURI`, then opens that redirect (which
    /// reaches the app's loopback listener) and returns what it answered.
    public func logIn(at url: URL, redirectURI: String) async throws -> Callback {
        switch try await play(from: url, redirectURI: redirectURI) {
        case .callback(let callback): return callback
        case .page(let page): throw Failure.stuck(status: page.status, url: page.url.path, text: page.text, trace: trace)
        }
    }

    /// Opens `url`, logs in and answers questions until a page that neither redirects nor has a
    /// form: the end of a flow that does not return to an app, such as approving a device.
    /// Throws when that page is an HTTP error.
    public func walk(from url: URL) async throws -> Page {
        switch try await play(from: url, redirectURI: nil) {
        case .page(let page): return page
        case .callback(let callback): return Page(url: callback.url, status: callback.status, body: callback.body)
        }
    }

    private enum Outcome {
        case callback(Callback)
        case page(Page)
    }

    private func play(from start: URL, redirectURI: String?) async throws -> Outcome {
        var method = "GET"
        var url = start
        var body: Data?
        var loginsSent = 0
        for _ in 0..<maxSteps {
            if let redirectURI, Self.url(url, isAt: redirectURI) {
                let response = try await fetch("GET", url, body: nil)
                return .callback(Callback(url: url, status: response.status, body: response.text))
            }
            let response = try await fetch(method, url, body: body)
            if (300..<400).contains(response.status), let location = response.header("Location") {
                guard let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw Failure.stuck(status: response.status, url: url.path, text: "unusable Location", trace: trace)
                }
                if response.status != 307, response.status != 308 {
                    method = "GET"
                    body = nil
                }
                url = next
                continue
            }
            let page = Page(url: url, status: response.status, body: response.text)
            guard let form = HTMLForm.all(in: page.body).first else {
                if redirectURI == nil, (200..<300).contains(response.status) { return .page(page) }
                throw Failure.stuck(status: response.status, url: url.path, text: page.text, trace: trace)
            }
            if form.asksForPassword {
                guard loginsSent == 0 else { throw Failure.loginRefused(text: page.text, trace: trace) }
                loginsSent += 1
            }
            let fields = fill(form)
            var target = url
            if let action = form.action, !action.isEmpty {
                guard let resolved = URL(string: action, relativeTo: url)?.absoluteURL else {
                    throw Failure.stuck(status: response.status, url: url.path, text: "unusable form action", trace: trace)
                }
                target = resolved
            }
            if form.method == "POST" {
                method = "POST"
                body = Data(LoopbackHTTP.formEncoded(fields).utf8)
                url = target
            } else {
                var components = URLComponents(url: target, resolvingAgainstBaseURL: false)
                components?.percentEncodedQuery = LoopbackHTTP.formEncoded(fields)
                guard let next = components?.url else { throw Failure.stuck(status: response.status, url: url.path, text: "form URL", trace: trace) }
                method = "GET"
                body = nil
                url = next
            }
        }
        throw Failure.tooManySteps(trace: trace)
    }

    /// The fields the form sends: its own values, the credentials in a login form, the button
    /// the decision picks, and the caller's extra fields.
    private func fill(_ form: HTMLForm) -> [(String, String)] {
        var fields: [(String, String)] = []
        let isLogin = form.asksForPassword
        let userField = isLogin ? Self.userNameField(in: form) : nil
        for control in form.controls where !control.isSubmit {
            guard let name = control.name, !name.isEmpty else { continue }
            switch control.type {
            case "button", "reset", "file": continue
            case "checkbox", "radio": if !control.checked { continue }
            default: break
            }
            var value = control.value
            if isLogin, control.type == "password" { value = password }
            if isLogin, name == userField { value = username }
            fields.append((name, value))
        }
        if let button = submitButton(of: form), let name = button.name, !name.isEmpty {
            fields.append((name, button.value))
        }
        for (name, value) in extraFields.sorted(by: { $0.key < $1.key }) {
            if fields.contains(where: { $0.0 == name }) {
                fields = fields.map { $0.0 == name ? (name, value) : $0 }
            } else {
                fields.append((name, value))
            }
        }
        return fields
    }

    /// The field that takes the user name: one named like a user name, else the first text or
    /// email field.
    private static func userNameField(in form: HTMLForm) -> String? {
        let candidates = form.controls.filter { ["text", "email", ""].contains($0.type) && $0.name != nil }
        let names = ["username", "user", "user_name", "login", "email", "j_username", "userid", "user_id", "name"]
        for wanted in names {
            if let match = candidates.first(where: { $0.name?.lowercased() == wanted }) { return match.name }
        }
        return candidates.first(where: { $0.name?.lowercased().contains("user") == true })?.name ?? candidates.first?.name
    }

    private static let approveWords: Set<String> = ["allow", "authorize", "authorise", "accept", "approve", "consent", "confirm", "yes", "grant", "continue"]
    private static let denyWords: Set<String> = ["deny", "cancel", "reject", "decline", "refuse", "no", "disallow"]

    private func submitButton(of form: HTMLForm) -> HTMLForm.Control? {
        let buttons = form.controls.filter(\.isSubmit)
        func words(_ control: HTMLForm.Control) -> Set<String> {
            let text = [control.name ?? "", control.value, control.label].joined(separator: " ").lowercased()
            return Set(text.split { !$0.isLetter }.map(String.init))
        }
        switch decision {
        case .approve:
            return buttons.first { !words($0).isDisjoint(with: Self.approveWords) } ?? buttons.first
        case .deny:
            return buttons.first { !words($0).isDisjoint(with: Self.denyWords) }
                ?? buttons.first { $0.name == nil || $0.name!.isEmpty }
        }
    }

    /// Whether `url` is the redirect URI (with a query or fragment after it, or nothing).
    static func url(_ url: URL, isAt redirectURI: String) -> Bool {
        let text = url.absoluteString
        guard text.hasPrefix(redirectURI) else { return false }
        let rest = text.dropFirst(redirectURI.count)
        return rest.isEmpty || rest.hasPrefix("?") || rest.hasPrefix("#")
    }

    /// One request with the cookies for its host; cookies set by the reply are kept.
    private func fetch(_ method: String, _ url: URL, body: Data?) async throws -> LoopbackHTTP.Response {
        let host = (url.host ?? "").lowercased()
        var headers: [LoopbackHTTP.Header] = []
        let cookies = state.withLock { $0.cookies[host] ?? [:] }
        if !cookies.isEmpty {
            headers.append(LoopbackHTTP.Header("Cookie", cookies.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")))
        }
        if body != nil { headers.append(LoopbackHTTP.Header("Content-Type", "application/x-www-form-urlencoded")) }
        let response = try await LoopbackHTTP.send(method, url, headers: headers, body: body)
        state.withLock { state in
            state.trace.append("\(method) \(url.path) → \(response.status)")
            for line in response.headers(named: "Set-Cookie") { Self.apply(setCookie: line, host: host, to: &state.cookies) }
        }
        return response
    }

    /// Keeps or deletes a cookie (`Max-Age` ≤ 0, or an `Expires` in the past, deletes).
    private static func apply(setCookie line: String, host: String, to cookies: inout [String: [String: String]]) {
        let parts = line.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return }
        let name = String(pair[..<equals])
        let value = String(pair[pair.index(after: equals)...])
        var expired = false
        for attribute in parts.dropFirst() {
            let lowered = attribute.lowercased()
            if lowered.hasPrefix("max-age="), let age = Int(lowered.dropFirst(8)), age <= 0 { expired = true }
            if lowered.hasPrefix("expires="), lowered.contains("1970") { expired = true }
        }
        if expired {
            cookies[host]?[name] = nil
        } else {
            cookies[host, default: [:]][name] = value
        }
    }
}

extension BrowserPlayer {
    /// Logs in for a command that printed its authorization URL alone on its first stderr line
    /// (`coffer login --browser --no-open`), coming back to the redirect URI the URL names.
    public func logIn(printedBy process: ChildProcess, timeout: Duration = .seconds(30)) async throws -> Callback {
        let line = try process.errorLines(1, timeout: timeout)[0]
        guard let url = URL(string: line),
              let redirect = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "redirect_uri" })?.value
        else { throw Failure.stuck(status: 0, url: line, text: "no authorization URL with a redirect_uri on stderr", trace: []) }
        return try await logIn(at: url, redirectURI: redirect)
    }
}
