import Coffer
import Foundation

/// Reads and writes the session item in the app's keychain.
///
/// A read that fails (locked or unreachable store) throws; it never looks like "no session".
struct SessionStore: Sendable {
    let keychain: Keychain
    /// The item's account within the keychain's service.
    let account: String

    /// The stored session, or `nil` when there is none or it cannot be decoded.
    func load() throws(AuthError) -> StoredSession? {
        let data: Data?
        do { data = try keychain.data(for: account) } catch { throw .storage(error) }
        guard let data else { return nil }
        return try? Self.decoder.decode(StoredSession.self, from: data)
    }

    /// Replaces the stored session atomically, durably, before returning.
    func save(_ session: StoredSession) throws(AuthError) {
        let data: Data
        do { data = try Self.encoder.encode(session) } catch {
            throw .invalidRequest(reason: "the session cannot be encoded")
        }
        do {
            try keychain.set(data, for: account, options: ItemOptions(
                label: "Coffer session for \(session.binding.backendID)",
                custom: ["coffer.auth": "session"]))
        } catch { throw .storage(error) }
    }

    /// Removes the stored session. Returns whether there was one.
    @discardableResult
    func remove() throws(AuthError) -> Bool {
        do { return try keychain.remove(account) } catch { throw .storage(error) }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
