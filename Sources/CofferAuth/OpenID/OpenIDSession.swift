import Coffer
import Foundation

/// An OpenID login as the store keeps it: one item per issuer, client id and profile, bound to
/// the issuer and the client id, in its own namespace (service `coffer.openid`). It holds the
/// refresh token and the current access token, never a password. `description` redacts them.
struct OpenIDSession: Sendable, Hashable, Codable {
    /// The version of this encoding.
    var format = 1
    var issuer: String
    var clientID: String
    var profile: String
    var refreshToken: String?
    var accessToken: AccessToken?
    /// The scope the provider granted.
    var scope: String?
    var identity: AuthenticatedUser?
    /// The origins (`scheme://host[:port]`) the access token may be sent to.
    var apiOrigins: [String]

    /// Whether an access token is usable at `now` without the network.
    func hasUsableToken(at now: Date, leeway: TimeInterval) -> Bool {
        accessToken?.isValid(at: now, leeway: leeway) ?? false
    }
}

extension OpenIDSession: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var description: String {
        "OpenIDSession(issuer: \(issuer), client: \(clientID), profile: \(profile), subject: \(identity?.id ?? "none"), "
            + "refresh token: \(refreshToken == nil ? "none" : "redacted"), access token: \(accessToken.map(\.description) ?? "none"))"
    }

    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

/// Where ``OpenIDClient`` keeps its session in a ``CredentialStore``.
struct OpenIDSessionLocation: Sendable, Hashable {
    static let service = "coffer.openid"

    let issuer: String
    let clientID: String
    let profile: String

    var itemID: ItemID { .genericPassword(service: Self.service, account: "\(profile) \(clientID) \(issuer)") }

    var options: ItemOptions {
        ItemOptions(
            label: "Coffer OpenID session \(profile) (\(issuer))",
            custom: ["coffer.openid.issuer": issuer, "coffer.openid.client": clientID, "coffer.openid.profile": profile])
    }

    /// A stored session and the bytes it was read from or written as.
    struct StoredCopy {
        let data: Data
        let session: OpenIDSession
    }

    /// The stored session, or `nil` when there is none or it belongs to another issuer or
    /// client; `known` as it is when the stored bytes are still its own.
    func load(from store: any CredentialStore, known: StoredCopy? = nil) throws(AuthError) -> StoredCopy? {
        let data: Data?
        do { data = try store.secret(for: itemID) } catch { throw .storage(error) }
        guard let data else { return nil }
        if let known, known.data == data { return known }
        guard let session = try? JSONDecoder.sessions.decode(OpenIDSession.self, from: data),
              session.format == 1, session.issuer == issuer, session.clientID == clientID, session.profile == profile
        else { return nil }
        return StoredCopy(data: data, session: session)
    }

    /// Replaces the stored session atomically and durably, before returning what it stored.
    @discardableResult
    func save(_ session: OpenIDSession, to store: any CredentialStore) throws(AuthError) -> StoredCopy {
        let data: Data
        do { data = try session.storedForm() } catch { throw .invalidRequest(reason: "the session cannot be encoded") }
        do { try store.set(data, for: itemID, options: options) } catch { throw .storage(error) }
        return StoredCopy(data: data, session: session)
    }

    @discardableResult
    func remove(from store: any CredentialStore) throws(AuthError) -> Bool {
        do { return try store.remove(itemID) } catch { throw .storage(error) }
    }
}

extension JSONEncoder {
    /// How sessions are encoded: dates as seconds since 1970, keys sorted. One shared encoder
    /// (its options never change after this), not a new one for every session stored.
    static let sessions: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}

extension JSONDecoder {
    /// How sessions are decoded, shared as ``JSONEncoder/sessions`` is.
    static let sessions: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
