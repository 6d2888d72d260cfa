import Coffer
import CofferBase
import CofferSecretServiceProvider

extension FuzzTarget {
    /// What the Secret Service provider reads from a client itself, beyond what GDBus has
    /// already checked (docs/secret-service.md): object paths, the Diffie-Hellman peer value, an
    /// encrypted secret (IV and ciphertext) and attribute maps. Any bytes must give a value or a
    /// refusal, and what is read must round-trip.
    static let secretServiceInput = FuzzTarget(name: "secret-service-input") { bytes in
        // An object path: an item's or a locked match's path read must be the path its parts make.
        let text = String(decoding: bytes, as: UTF8.self)
        if case .item(let collection, let rowKey) = ObjectPaths.target(of: text), ObjectPaths.item(rowKey, in: collection) != text {
            fatalError("secret-service-input: an item path does not round-trip")
        }
        if case .lockedMatch(let collection, let number) = ObjectPaths.target(of: text), ObjectPaths.lockedMatch(number, in: collection) != text {
            fatalError("secret-service-input: a locked match's path does not round-trip")
        }
        if let decoded = Hex.decode(text), Hex.encode(decoded) != text {
            fatalError("secret-service-input: hex does not round-trip")
        }
        if !ObjectPaths.isElement(ObjectPaths.element(fromLabel: text)) {
            fatalError("secret-service-input: a label gave a bad path element")
        }

        // A Diffie-Hellman peer value: refused, or a shared value of the prime's length.
        if let shared = Self.exchange.sharedValue(withPeer: bytes), shared.count != 128 {
            fatalError("secret-service-input: a shared value is not 128 bytes")
        }

        // An encrypted secret (IV, then ciphertext): refused, or a plaintext that encrypts back.
        if bytes.count >= 16 {
            let iv = Array(bytes.prefix(16)), ciphertext = Array(bytes.dropFirst(16))
            if let plaintext = ciphertext.withUnsafeBytes({ AES128CBC.decrypt($0, key: Self.sessionKey, iv: iv) }),
               plaintext.withUnsafeBytes({ AES128CBC.encrypt($0, key: Self.sessionKey, iv: iv) }) != ciphertext {
                fatalError("secret-service-input: a decrypted secret does not encrypt back")
            }
        }

        // Attributes (pairs split at NUL): an identity and options the vault accepts or refuses.
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        var attributes: [String: String] = [:]
        for index in stride(from: 0, to: fields.count - 1, by: 2) { attributes[fields[index]] = fields[index + 1] }
        attributes = ItemMapping.normalized(attributes)
        let id = ItemMapping.identity(for: attributes, current: nil)
        let options = ItemMapping.options(for: id, attributes: attributes, label: text, contentType: "text/plain", previous: nil)
        if id.itemClass == .genericPassword, options.custom[AttributeName.service] != nil {
            fatalError("secret-service-input: a generic password kept its service as a custom attribute")
        }
    }

    /// One key pair for every input: making one costs a modular exponentiation. Fuzzing runs one
    /// input at a time, on one thread.
    nonisolated(unsafe) private static let exchange = DiffieHellmanGroup2()
    private static let sessionKey = SecureBytes(copying: [UInt8](repeating: 0x5A, count: 16))
}
