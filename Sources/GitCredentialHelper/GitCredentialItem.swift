import Coffer
import FoundationEssentials

/// How a git credential is kept in a store: an internet password, so that `coffer list` shows it.
///
/// - Its server is the credential's URL without user or password, `protocol://host[/path]`
///   (a `%`, `:` or `/` inside the protocol, and a `%` or `/` inside the host, written as `%25`,
///   `%3A` and `%2F`), and its account is the username: git keeps one credential per protocol,
///   host, path and username, and so does the store.
/// - Its internet attributes are the protocol, the port (from the host), the path and the
///   `authtype`; its custom attributes are the host exactly as git names it (`git.host`, which
///   marks the items this helper wrote) and the `password_expiry_utc` (`git.password_expiry_utc`).
/// - Its secret is the password, then one line for each other secret git gave:
///   `\noauth_refresh_token=…` and `\ncredential=…` (a password holds no newline).
enum GitCredentialItem {
    static let label = "git credential"
    static let hostAttribute = "git.host"
    static let expiryAttribute = "git.password_expiry_utc"

    /// The item's identity: `nil` when git's description lacks the protocol, or both host and path.
    static func id(for credential: GitCredential) -> ItemID? {
        guard let scheme = credential.protocol, credential.host != nil || credential.path != nil else { return nil }
        let host = credential.host ?? ""
        let server = escaped(scheme, ["%", ":", "/"]) + "://" + escaped(host, ["%", "/"]) + (credential.path.map { "/" + $0 } ?? "")
        return .internetPassword(server: server, account: credential.username ?? "")
    }

    static func options(for credential: GitCredential) -> ItemOptions {
        var custom = [hostAttribute: credential.host ?? ""]
        custom[expiryAttribute] = credential.passwordExpiry.map(String.init)
        let internet = InternetAttributes(
            protocol: credential.protocol, port: port(of: credential.host ?? ""), path: credential.path,
            authenticationType: credential.authType)
        return ItemOptions(label: label, custom: custom, internet: internet)
    }

    static func secret(for credential: GitCredential) -> Data {
        var secret = credential.password ?? Data()
        if let token = credential.oauthRefreshToken { secret += Data("\noauth_refresh_token=".utf8) + token }
        if let preEncoded = credential.credential { secret += Data("\ncredential=".utf8) + preEncoded }
        return secret
    }

    /// Whether this helper wrote the item.
    static func isGitCredential(_ attributes: ItemAttributes) -> Bool {
        attributes.id.itemClass == .internetPassword && attributes.custom[hostAttribute] != nil
    }

    /// The stored credential without its secrets (enough to match it), or `nil` for an item
    /// this helper did not write.
    static func credential(from attributes: ItemAttributes) -> GitCredential? {
        guard isGitCredential(attributes), let host = attributes.custom[hostAttribute] else { return nil }
        var credential = GitCredential()
        credential.protocol = attributes.internet?.protocol
        credential.host = host
        credential.path = attributes.internet?.path
        credential.username = attributes.id.account
        credential.authType = attributes.internet?.authenticationType
        credential.passwordExpiry = attributes.custom[expiryAttribute].flatMap(UInt64.init)
        return credential
    }

    /// The stored credential with its secrets.
    static func credential(from item: Item) -> GitCredential? {
        guard var credential = credential(from: item.attributes) else { return nil }
        let lines = item.secret.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for line in lines.dropFirst() {
            if let value = value(of: "oauth_refresh_token=", in: line) { credential.oauthRefreshToken = value }
            if let value = value(of: "credential=", in: line) { credential.credential = value }
        }
        // An empty first line is a password only when there is no pre-encoded credential instead.
        let password = Data(lines.first ?? Data())
        credential.password = password.isEmpty && credential.credential != nil ? nil : password
        return credential
    }

    /// The query that finds the items `want` may select: this helper's items for its host.
    static func query(for want: GitCredential) -> ItemQuery {
        ItemQuery(itemClass: .internetPassword, account: want.username, custom: want.host.map { [hostAttribute: $0] } ?? [:])
    }

    private static func value(of prefix: String, in line: Data) -> Data? {
        line.starts(with: Data(prefix.utf8)) ? Data(line.dropFirst(prefix.utf8.count)) : nil
    }

    private static func escaped(_ text: String, _ characters: Set<Character>) -> String {
        var out = ""
        for character in text {
            if characters.contains(character) {
                out += character.utf8.map { "%" + String($0, radix: 16, uppercase: true) }.joined()
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// The port a host names (`example.com:8080`, `[::1]:8080`), if any.
    static func port(of host: String) -> Int? {
        guard let colon = host.lastIndex(of: ":") else { return nil }
        let name = host[..<colon]
        guard !name.contains(":") || name.hasSuffix("]") else { return nil }
        let digits = host[host.index(after: colon)...]
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(digits),
              port <= 65535 else { return nil }
        return port
    }
}
