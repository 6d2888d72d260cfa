import Coffer
import Foundation

/// A session that `OpenSession` opened: how secrets travel between the provider and the one
/// connection that opened it (specification, "Transfer of Secrets").
final class TransferSession {
    /// The algorithms the provider offers; any other is `org.freedesktop.DBus.Error.NotSupported`.
    enum Algorithm: String, CaseIterable {
        case plain
        case diffieHellman = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
    }

    let path: String
    /// The unique bus name of the connection that opened it: the only one that may use it.
    let owner: String
    let algorithm: Algorithm
    /// The AES-128 key of a Diffie-Hellman session.
    private let key: SecureBytes?

    private init(path: String, owner: String, algorithm: Algorithm, key: SecureBytes?) {
        self.path = path
        self.owner = owner
        self.algorithm = algorithm
        self.key = key
    }

    /// Negotiates a session for `owner`: the session and `OpenSession`'s `output`.
    static func open(algorithm name: String, input: Variant, path: String, owner: String) throws(DBusError) -> (TransferSession, Variant) {
        guard let algorithm = Algorithm(rawValue: name) else {
            throw .notSupported("the algorithm \(name.debugDescription) is not supported; use plain or \(Algorithm.diffieHellman.rawValue)")
        }
        switch algorithm {
        case .plain:
            return (TransferSession(path: path, owner: owner, algorithm: .plain, key: nil), .boxed(.string("")))
        case .diffieHellman:
            guard input.isOfType("ay") else { throw .invalidArguments("the Diffie-Hellman input is the client's public value, as bytes") }
            let exchange = DiffieHellmanGroup2()
            guard let shared = input.withBytes({ exchange.sharedValue(withPeer: Array($0)) }) else {
                throw .invalidArguments("the client's public value is not one of the group's")
            }
            let key = HKDFSHA256.derive(from: shared, length: 16)
            return (TransferSession(path: path, owner: owner, algorithm: .diffieHellman, key: key), .boxed(.bytes(exchange.publicValue)))
        }
    }

    /// A secret as the `(oayays)` struct: session, parameters, value, content type.
    func encode(_ secret: Data, contentType: String) -> Variant {
        let parameters: [UInt8], value: [UInt8]
        if let key {
            parameters = RandomIV.make()
            value = AES128CBC.encrypt(secret, key: key, iv: parameters)
        } else {
            parameters = []
            value = Array(secret)
        }
        return .tuple([.objectPath(path), .bytes(parameters), .bytes(value), .string(contentType)])
    }

    /// The plaintext of a secret that came in this session, in secure memory.
    func decode(parameters: [UInt8], value: Variant) throws(DBusError) -> SecureBytes {
        guard let key else { return value.withBytes { SecureBytes(copying: $0) } }
        guard parameters.count == AES128CBC.blockLength else { throw .invalidArguments("the secret's parameters must be its 16-byte IV") }
        guard let plaintext = value.withBytes({ AES128CBC.decrypt($0, key: key, iv: parameters) }) else {
            throw .invalidArguments("the secret was not encrypted for this session (not whole blocks, or bad padding)")
        }
        return plaintext
    }
}

/// Initialisation vectors for AES-CBC: 16 random bytes from libsodium. An IV is sent in the
/// clear, so it is made in ordinary memory: secure memory costs a mapping of its own, locked and
/// guarded, on every `GetSecret`.
enum RandomIV {
    static func make() -> [UInt8] {
        RandomBytes.make(AES128CBC.blockLength)
    }
}
