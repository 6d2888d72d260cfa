/// The header names the protocols use (docs/protocol.md).
package enum HeaderName {
    /// Oracle Mobile Hub's backend id header, sent with every call.
    package static let backendID = "Oracle-Mobile-Backend-ID"
    /// Oracle Mobile Hub's application key, sent when the app configures one.
    package static let applicationKey = "Oracle-Mobile-Application-Key"
    /// Oracle Mobile Hub's device id, sent when the app configures one.
    package static let deviceID = "Oracle-Mobile-Device-Id"
    /// Sent by the MobileFirst SDKs with every request (`XMLHttpRequest`).
    package static let requestedWith = "X-Requested-With"
    /// Mobile Client Access's session id, on every request to the authorization server.
    package static let clientAccessSession = "X-WL-Session"
    /// Mobile Client Access's signed grant code, on the token request.
    package static let clientAccessAuthenticate = "X-WL-Authenticate"
    package static let authorization = "Authorization"
    package static let contentType = "Content-Type"
    package static let accept = "Accept"
    package static let wwwAuthenticate = "WWW-Authenticate"
}

/// The media types the protocols use.
package enum MediaType {
    package static let json = "application/json"
    package static let form = "application/x-www-form-urlencoded"

    /// Whether a `Content-Type` value is JSON: `application/json` or `application/*+json`,
    /// with any parameters (such as `charset=utf-8`).
    package static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = ASCIICase.lowercased(ASCIICase.trimmingWhitespace(contentType.split(separator: ";", maxSplits: 1).first ?? ""))
        return essence == json || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }
}
