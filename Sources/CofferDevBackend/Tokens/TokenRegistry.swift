import Foundation
import Synchronization

/// The tokens the development backend issued: random, opaque, with an expiry.
final class TokenRegistry: Sendable {
    private let tokens = Mutex<[String: IssuedToken]>([:])

    /// Issues a new random token for `subject`.
    func issue(_ subject: IssuedToken.Subject, origin: IssuedToken.Origin, clientID: String?, expiresAt: Date) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let value = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        tokens.withLock { $0[value] = IssuedToken(subject: subject, origin: origin, clientID: clientID, expiresAt: expiresAt) }
        return value
    }

    /// The token, if it was issued, is not revoked and has not expired at `now`.
    func valid(_ value: String, at now: Date) -> IssuedToken? {
        tokens.withLock { tokens in
            guard let token = tokens[value], !token.revoked, now < token.expiresAt else { return nil }
            return token
        }
    }

    /// Revokes the token if `clientID` may (it was issued to that client, or to no client).
    /// Returns whether a token was revoked.
    @discardableResult
    func revoke(_ value: String, by clientID: String) -> Bool {
        tokens.withLock { tokens in
            guard let token = tokens[value], token.clientID == nil || token.clientID == clientID else { return false }
            tokens[value]?.revoked = true
            return true
        }
    }
}
