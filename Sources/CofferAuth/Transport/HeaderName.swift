/// The header names the protocols use (docs/protocol.md).
package enum HeaderName {
    /// Oracle Mobile Hub's backend id header, sent with every call.
    package static let backendID = "Oracle-Mobile-Backend-ID"
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
        let essence = (contentType.split(separator: ";", maxSplits: 1).first ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
        return essence == json || (essence.hasPrefix("application/") && essence.hasSuffix("+json"))
    }
}
