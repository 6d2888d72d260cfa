import CofferBase
import Crypto
import Foundation

/// The made-up identity of a development user, as ID tokens and UserInfo give it.
public enum DevIdentity {
    /// The user's `sub`: stable for a user name across restarts, opaque
    /// (`dev-` and 16 hex digits of a SHA-256 of the name).
    public static func subject(of user: String) -> String {
        "dev-" + Hex.encode(SHA256.hash(data: Data("coffer-dev-subject:\(user)".utf8)).prefix(8))
    }

    /// The user's `name`: the user name with its first letter in upper case, then ` Tester`.
    public static func name(of user: String) -> String {
        user.prefix(1).uppercased() + user.dropFirst() + " Tester"
    }

    /// The user's `email`: `<user>@example.test`.
    public static func email(of user: String) -> String {
        "\(user)@example.test"
    }

    /// The claims a scope releases (§5.4): `sub` always, `preferred_username` and `name` with
    /// `profile`, `email` and `email_verified` with `email`.
    static func claims(of user: String, scope: [String]) -> [String: JSON] {
        var claims: [String: JSON] = ["sub": .string(subject(of: user))]
        if scope.contains("profile") {
            claims["preferred_username"] = .string(user)
            claims["name"] = .string(name(of: user))
        }
        if scope.contains("email") {
            claims["email"] = .string(email(of: user))
            claims["email_verified"] = .bool(true)
        }
        return claims
    }
}
