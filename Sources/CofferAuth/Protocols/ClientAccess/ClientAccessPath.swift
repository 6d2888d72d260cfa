/// The names of a Mobile Client Access authorization server (docs/protocol.md section 9): its
/// endpoints below `{authorization server}/authorization/v1/apps/{tenant id}/`, and the
/// protocol's fixed strings. Sources: the MCA Swift and Android client SDKs
/// (`BMSSecurityConstants`, `AuthorizationProcessManager`, `AuthorizationRequestManager`) and
/// the resource-side validator (`bms-mca-token-validation-strategy`).
package enum ClientAccessPath {
    package static let apps = "authorization/v1/apps"
    package static let registration = "clients/instance"
    package static let authorization = "authorization"
    package static let token = "token"
    package static let logout = "logout"
    /// The `redirect_uri` both SDKs send; the code is read from the redirect, nothing is loaded.
    package static let redirectURI = "http://localhost"
    /// The realm a protected resource names: `WWW-Authenticate: Bearer realm="imfAuthentication"`.
    package static let resourceRealm = "imfAuthentication"
    /// The `WWW-Authenticate` value of an authorization reply that carries challenges.
    package static let challengeScheme = "WL-Composite-Challenge"
    /// The `wl_result` members that carry the realms' successes and failures.
    package static let successMember = "WL-Authentication-Success"
    package static let failureMember = "WL-Authentication-Failure"
    /// The claim of the ID token that describes the user.
    package static let userClaim = "imf.user"
    /// The `environment` a Coffer client registers with (the SDKs send `android`, `iOSnative`).
    package static let environment = "linux"
}
