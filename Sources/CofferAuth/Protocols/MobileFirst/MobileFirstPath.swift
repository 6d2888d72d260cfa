/// The names of a MobileFirst 8 runtime's API (docs/protocol.md section 8): the endpoints below
/// `{server}/{runtime}/api/`, and the protocol's fixed strings. Sources: the MobileFirst 8 web SDK
/// (`ibmmfpf.js`) and Android SDK (`com.worklight.*`), and the Developer Center tutorials.
package enum MobileFirstPath {
    /// The API root below the runtime.
    package static let api = "api"
    package static let registration = "registration/v1/self"
    package static let preauthorize = "preauth/v1/preauthorize"
    package static let logout = "preauth/v1/logout"
    package static let authorization = "az/v1/authorization"
    package static let token = "az/v1/token"
    /// The web SDK's `redirect_uri`: `{api}/az/v1/authorization/redirect/{client id}`.
    package static let redirect = "az/v1/authorization/redirect"
    /// The `WWW-Authenticate` value of a preauthorize reply that carries challenges.
    package static let challengeScheme = "MFP-Challenge"
    /// The header of a 409 the client answers by sending the same request again.
    package static let conflictHeader = "MFP-Conflict"
    /// How many times the SDKs send a request again after a 409 `MFP-Conflict`.
    package static let maxConflictRetries = 7
    /// The `errorCode` of a 400 that means "register again".
    package static let unknownClientError = "INVALID_CLIENT_ID"
    /// The security check whose success carries the server's clock (`serverTimeStamp`, ms).
    package static let clockSynchronization = "clockSynchronization"
    /// The scope element every registered client is granted without a challenge.
    package static let registeredClientScope = "RegisteredClient"
    /// RFC 7523's `client_assertion_type`.
    package static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The client platform Coffer registers as: the web SDK's (it sends no app binary data).
    package static let clientPlatform = "web"
}
