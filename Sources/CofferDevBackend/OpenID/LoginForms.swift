import Hummingbird

/// The pages a person uses: the authorization endpoint's login form and the device
/// verification form. No cookies and no CSRF token: each form carries everything it needs.
enum LoginForms {
    /// The authorization endpoint's login form: user name, password, Allow and Deny, POSTed
    /// back to `/oidc/authorize` with the request's parameters.
    static func authorization(_ request: AuthorizationRequest, error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let fields = request.parameters.map { HTMLPage.hidden($0.0, $0.1) }.joined(separator: "\n")
        let body = """
            <p>\(HTMLPage.escape(request.client.id)) asks to sign you in (scope: \(HTMLPage.escape(ScopeList.format(request.scope)))).</p>
            \(HTMLPage.message(error))
            <form method="post" action="\(DevBackendPath.OpenID.authorize)">
            \(fields)
            <label>User name <input name="username" autocomplete="username" autofocus></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            <button name="action" value="allow">Allow</button> <button name="action" value="deny">Deny</button>
            </form>
            """
        return HTMLPage.response(title: "Coffer dev backend: sign in", body: body, status: status)
    }

    /// The device verification form: the user code (filled in when known), user name,
    /// password, Allow and Deny, POSTed to `/oidc/device/verify`.
    static func device(userCode: String?, message: String? = nil, error: Bool = true, status: HTTPResponse.Status = .ok) -> Response {
        let body = """
            <p>Enter the code your device shows, then sign in to allow it.</p>
            \(HTMLPage.message(message, error: error))
            <form method="post" action="\(DevBackendPath.OpenID.deviceVerify)">
            <label>Code <input name="user_code" value="\(HTMLPage.escape(userCode ?? ""))" autocomplete="off"></label>
            <label>User name <input name="username" autocomplete="username"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            <button name="action" value="allow">Allow</button> <button name="action" value="deny">Deny</button>
            </form>
            """
        return HTMLPage.response(title: "Coffer dev backend: device login", body: body, status: status)
    }
}
