import FoundationEssentials

/// A credential description as git passes it to a helper (git-credential(1), "INPUT/OUTPUT
/// FORMAT"): what it is for (protocol, host, path), who (username), and the secrets.
///
/// Secrets stay bytes: a password may hold any byte but newline and NUL. The names become an
/// item's identity and attributes, so they must be UTF-8 (``GitCredentialReader`` refuses others).
package struct GitCredential: Equatable {
    var `protocol`: String?
    /// The host, with the port when the URL names one (`example.com:8080`).
    var host: String?
    var path: String?
    var username: String?
    var password: Data?
    /// `password_expiry_utc`: seconds since 1970, UTC. `nil` for none (git reads 0, an
    /// overflow and text that is not a number as none).
    var passwordExpiry: UInt64?
    var oauthRefreshToken: Data?
    /// `authtype` and `credential`: a pre-encoded credential (`Authorization: <authtype> <credential>`);
    /// only with the `authtype` capability.
    var authType: String?
    var credential: Data?
    /// An `ephemeral` credential is not for keeping.
    var ephemeral = false
    /// The capabilities the caller announced (`capability[]`) that this helper understands.
    var capabilities: Set<Capability> = []
    /// `wwwauth[]`: the server's `WWW-Authenticate` headers, for helpers that pick a scheme. Read and kept, not used.
    var wwwAuthenticate: [String] = []
    /// `state[]`: opaque values helpers hand themselves across rounds. This helper sets none.
    var state: [String] = []

    enum Capability: String, CaseIterable {
        /// `authtype`, `credential` and `ephemeral` are understood.
        case authType = "authtype"
    }

    /// Whether a stored credential `have` is one git asks for with this description: every
    /// field this one names (protocol, host, path, username, and with `matchingSecrets` the
    /// password and pre-encoded credential) is present in `have` and equal, as git's own
    /// `credential_match` rules. A field this one leaves out matches anything.
    func selects(_ have: GitCredential, matchingSecrets: Bool) -> Bool {
        func check<T: Equatable>(_ want: T?, _ have: T?) -> Bool { want == nil || want == have }
        return check(`protocol`, have.protocol) && check(host, have.host) && check(path, have.path)
            && check(username, have.username)
            && (!matchingSecrets || (check(password, have.password) && check(credential, have.credential)))
    }

    /// Whether the password or pre-encoded credential has expired at `now` (git: expiry < now).
    func hasExpired(at now: Date) -> Bool {
        guard let passwordExpiry else { return false }
        return Double(passwordExpiry) < now.timeIntervalSince1970.rounded(.down)
    }

    /// What `get` answers for this stored credential to a caller that announced `capabilities`:
    /// the username and the secrets, in git's own order, as `key=value` lines. An expired
    /// password (or pre-encoded credential) and its expiry are left out; the username and the
    /// refresh token stay, as git itself keeps them when it drops an expired password.
    ///
    /// Throws ``UnanswerableField`` when a value to answer holds a newline, a carriage return
    /// or a NUL byte: written out, it would end its line and add fields of its own (a
    /// `host=` of the stored value's choosing). Nothing is answered then.
    func answer(to capabilities: Set<Capability>, now: Date) throws(UnanswerableField) -> Data {
        var lines = Data()
        func line(_ key: String, _ value: Data?) throws(UnanswerableField) {
            guard let value else { return }
            guard !value.contains(where: Self.lineBreaking.contains) else { throw UnanswerableField(key: key) }
            lines += Data(key.utf8) + Data("=".utf8) + value + Data("\n".utf8)
        }
        let expired = hasExpired(at: now)
        let preEncoded = capabilities.contains(.authType) && !expired
        if capabilities.contains(.authType) { try line("capability[]", Data(Capability.authType.rawValue.utf8)) }
        if preEncoded, credential != nil {
            try line("authtype", authType.map { Data($0.utf8) })
            try line("credential", credential)
        }
        // A pre-encoded credential stored without a user name has an empty one: not worth a line.
        if let username, !(username.isEmpty && password == nil) { try line("username", Data(username.utf8)) }
        if !expired {
            try line("password", password)
            try line("password_expiry_utc", passwordExpiry.map { Data(String($0).utf8) })
        }
        try line("oauth_refresh_token", oauthRefreshToken)
        return lines
    }

    /// The bytes that end a line of git's format, or that git's reader cuts a value at: newline,
    /// carriage return (git strips one before a newline, and CVE-2024-52006 showed readers that
    /// take a lone one for a line end) and NUL.
    static let lineBreaking: Set<UInt8> = [0x0A, 0x0D, 0x00]

    /// A stored value that `get` must not answer: it holds a byte of ``lineBreaking``.
    struct UnanswerableField: Error, CustomStringConvertible {
        /// The field's key (`username`); never its value.
        let key: String
        var description: String {
            "the stored credential's \(key) holds a newline, carriage return or NUL byte, which git's format cannot carry; "
                + "nothing answered (the item is kept as it is; coffer list shows it)"
        }
    }

    /// Whether `get` can answer with this stored credential: it has a password, or a
    /// pre-encoded credential the caller understands.
    func isUsable(by capabilities: Set<Capability>) -> Bool {
        password != nil || (credential != nil && capabilities.contains(.authType))
    }
}
