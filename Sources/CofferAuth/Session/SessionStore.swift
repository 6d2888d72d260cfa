import Coffer
import Foundation

/// Reads and writes one session item in the store, under service `coffer.auth`: the mobile
/// backend facade's ``StoredSession``, or a challenge client's ``ChallengeSession``.
///
/// A read that fails (locked or unreachable store) throws; it never looks like "no session".
struct SessionStore<Value: Codable & Sendable>: Sendable {
    /// The service of every session item but OpenID logins'.
    static var service: String { "coffer.auth" }

    let keychain: Keychain
    /// The item's account within the keychain's service.
    let account: String
    /// The item's label.
    let label: String
    /// The item's `coffer.auth` attribute: what kind of session it holds.
    var kind = "session"

    /// The stored session, or `nil` when there is none or it cannot be decoded.
    func load() throws(AuthError) -> Value? {
        let data: Data?
        do { data = try keychain.data(for: account) } catch { throw .storage(error) }
        guard let data else { return nil }
        return try? JSONDecoder.sessions.decode(Value.self, from: data)
    }

    /// Replaces the stored session atomically, durably, before returning.
    func save(_ session: Value) throws(AuthError) {
        let data: Data
        do { data = try JSONEncoder.sessions.encode(session) } catch {
            throw .invalidRequest(reason: "the session cannot be encoded")
        }
        do {
            try keychain.set(data, for: account, options: ItemOptions(label: label, custom: ["coffer.auth": kind]))
        } catch { throw .storage(error) }
    }

    /// Removes the stored session. Returns whether there was one.
    @discardableResult
    func remove() throws(AuthError) -> Bool {
        do { return try keychain.remove(account) } catch { throw .storage(error) }
    }
}
