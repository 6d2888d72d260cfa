import Foundation

extension OpenIDSession {
    /// The session as the store keeps it: compact JSON, members in sorted order, dates as
    /// seconds since 1970 (what `JSONEncoder.sessions` writes, and `JSONDecoder.sessions`
    /// reads back: `OpenIDSessionTests` checks that both give the same JSON value). Written by
    /// hand, since a refresh stores the session every time (docs/performance.md, the refresh).
    func storedForm() throws(EncodingError) -> Data {
        var writer = JSONWriter()
        try writer.object { (session: inout JSONWriter) throws(EncodingError) in
            if let accessToken {
                try session.member("accessToken") { (token: inout JSONWriter) throws(EncodingError) in
                    try token.member("expiresAt", accessToken.expiresAt.timeIntervalSince1970)
                    token.member("idToken", accessToken.idToken)
                    try token.member("issuedAt", accessToken.issuedAt.timeIntervalSince1970)
                    token.member("type", accessToken.type)
                    token.member("value", accessToken.value)
                }
            }
            session.member("apiOrigins", apiOrigins)
            session.member("clientID", clientID)
            try session.member("format", Double(format))
            if let identity {
                try session.member("identity") { (user: inout JSONWriter) throws(EncodingError) in
                    try user.member("authenticatedAt", identity.authenticatedAt?.timeIntervalSince1970)
                    user.member("authenticatedBy", identity.authenticatedBy)
                    user.member("email", identity.email)
                    user.member("id", identity.id)
                    user.member("name", identity.name)
                    user.member("preferredUsername", identity.preferredUsername)
                }
            }
            session.member("issuer", issuer)
            session.member("profile", profile)
            session.member("refreshToken", refreshToken)
            session.member("scope", scope)
        }
        return Data(writer.bytes)
    }
}
