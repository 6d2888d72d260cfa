import CofferAgentWire
import FoundationEssentials

/// An access token the agent hands out for a login it holds (docs/agent.md, "The token
/// broker"): the token, its type, when it expires, the scope the provider granted and the
/// origins the login may send it to. Never a refresh token. `description` never shows the token.
package struct BrokeredToken: Sendable, Hashable, CustomStringConvertible {
    /// The access token itself. A secret.
    package let value: String
    package let type: String
    package let issuedAt: Date
    package let expiresAt: Date
    /// The scope the provider granted, when it said.
    package let scope: String?
    /// The origins (`scheme://host[:port]`) the login sends its token to.
    package let apiOrigins: [String]

    package init(value: String, type: String, issuedAt: Date, expiresAt: Date, scope: String?, apiOrigins: [String]) {
        self.value = value
        self.type = type
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.scope = scope
        self.apiOrigins = apiOrigins
    }

    package var description: String { "BrokeredToken(type: \(type), value: redacted, expiresAt: \(expiresAt))" }

    /// `u32be(len(type)) || type || i64be(issued at) || i64be(expires at)`, milliseconds since 1970.
    var encodedTerms: [UInt8] {
        func millis(_ date: Date) -> [UInt8] { bigEndian(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
        return bigEndian(UInt32(type.utf8.count)) + Array(type.utf8) + millis(issuedAt) + millis(expiresAt)
    }

    init?(value: [UInt8], terms bytes: [UInt8], scope: [UInt8]?, apiOrigins: [[UInt8]]) {
        guard bytes.count >= 4, let value = String(validating: value, as: UTF8.self), !value.isEmpty else { return nil }
        let typeLength = Int(readUInt32(bytes, at: 0))
        guard bytes.count - 4 == typeLength + 16, let type = String(validating: bytes[4..<(4 + typeLength)], as: UTF8.self) else { return nil }
        func date(_ offset: Int) -> Date? {
            readInteger(Array(bytes[offset..<(offset + 8)]), as: Int64.self).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        }
        guard let issuedAt = date(4 + typeLength), let expiresAt = date(12 + typeLength) else { return nil }
        var scopeText: String?
        if let scope {
            guard let text = String(validating: scope, as: UTF8.self) else { return nil }
            scopeText = text
        }
        let origins = apiOrigins.compactMap { String(validating: $0, as: UTF8.self) }
        guard origins.count == apiOrigins.count else { return nil }
        self.init(value: value, type: type, issuedAt: issuedAt, expiresAt: expiresAt, scope: scopeText, apiOrigins: origins)
    }
}

/// Why the agent hands out no token for a login (docs/agent.md, "The token broker"). Access
/// refusals are ``CofferError/accessDenied(program:)`` replies, as for items.
package enum TokenFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The agent holds no login of that profile in that vault.
    case notLoggedIn
    /// The provider refused the refresh token (or the session had none): the agent ended the
    /// session, and the person must log in again.
    case loginRequired
    /// The provider could not be reached, timed out or failed (5xx); the session is kept and a
    /// later request tries again. The text says why, never with a token.
    case providerUnavailable(String)
    /// The provider's answer could not be used (an error the refresh cannot get past, an ID
    /// token that failed verification); the text says why.
    case providerError(String)

    package var description: String {
        switch self {
        case .notLoggedIn: "the agent holds no login of this profile"
        case .loginRequired: "the provider refused the refresh token; log in again"
        case .providerUnavailable(let reason): "the provider is unavailable: \(reason)"
        case .providerError(let reason): "the provider's answer could not be used: \(reason)"
        }
    }

    var code: UInt8 {
        switch self {
        case .notLoggedIn: 1
        case .loginRequired: 2
        case .providerUnavailable: 3
        case .providerError: 4
        }
    }

    var text: String {
        switch self {
        case .notLoggedIn, .loginRequired: ""
        case .providerUnavailable(let reason), .providerError(let reason): reason
        }
    }

    init?(code: UInt8, text: String) {
        switch code {
        case 1: self = .notLoggedIn
        case 2: self = .loginRequired
        case 3: self = .providerUnavailable(text)
        case 4: self = .providerError(text)
        default: return nil
        }
    }
}

/// The items that hold the logins the agent brokers (service `coffer.openid`): their refresh
/// tokens never leave the agent, so no item request reads, writes, lists or removes them, on
/// any front door (``isBrokered(_:)``); only the agent's token requests use them.
package enum BrokeredSessions {
    /// The service of every item of a brokered login: its settings (account: the profile) and
    /// its session (account: profile, client id and issuer).
    package static let service = "coffer.openid"

    /// Whether `id` is an item of a brokered login.
    package static func isBrokered(_ id: ItemID) -> Bool {
        id.service == service && id.itemClass == .genericPassword
    }

    /// The item that holds the settings of profile `profile` (provider, client), owned by the
    /// program that logged in: its owner and access list decide who gets the profile's tokens.
    package static func settingsID(profile: String) -> ItemID {
        .genericPassword(service: service, account: profile)
    }
}
