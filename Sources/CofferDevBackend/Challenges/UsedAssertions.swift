import CofferBase
import Crypto
import Foundation

/// The signed messages already accepted, until they expire: a client assertion or a signed code
/// is good once (RFC 7523 §3 item 7: the server may keep `jti`s to prevent replay).
final class UsedAssertions: Sendable {
    private let used = Guarded<[Data: Date]>([:])

    /// Records the message with `signature`, valid until `expiresAt`. Returns `false` when it
    /// was already used (a replay). Forgets the messages that expired by `now`.
    func claim(signature: Data, until expiresAt: Date, now: Date) -> Bool {
        let digest = Data(SHA256.hash(data: signature))
        return used.withLock { used in
            used = used.filter { $0.value > now }
            guard used[digest] == nil else { return false }
            used[digest] = expiresAt
            return true
        }
    }
}
