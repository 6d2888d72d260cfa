import CofferBase
import Coffer
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// The `dh-ietf1024-sha256-aes128-cbc-pkcs7` session's parts, against RFC 5869's test vector and
/// against an independent implementation: python-secretstorage's client side of the same session
/// (its own prime, its own HKDF) with python's `cryptography` for AES.
final class SessionCryptoTests: XCTestCase {
    private func python(_ script: String, _ arguments: [String] = []) throws -> String {
        let output = try ChildProcess.run("/usr/bin/python3", ["-c", script] + arguments)
        guard output.status == 0 else {
            if output.stderrText.contains("ModuleNotFoundError") { throw MissingPrerequisite.error("python3-secretstorage: \(output.stderrText)") }
            XCTFail(output.stderrText)
            return ""
        }
        return output.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// RFC 5869, appendix A.3 (SHA-256, no salt, no info): the first 16 and 32 bytes of its OKM.
    func testHKDFMatchesRFC5869TestCase3() {
        let input = SecureBytes(copying: [UInt8](repeating: 0x0B, count: 22))
        XCTAssertEqual(HKDFSHA256.derive(from: input, length: 16).withUnsafeBytes { hex($0) }, "8da4e775a563c18f715f802a063c5a31")
        XCTAssertEqual(
            HKDFSHA256.derive(from: input, length: 32).withUnsafeBytes { hex($0) },
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d")
    }

    /// The group's prime is the one python-secretstorage uses (RFC 2409's second Oakley group).
    func testPrimeIsSecretstorages() throws {
        let theirs = try python("import secretstorage.dhcrypto as d; print(bytes(d.DH_PRIME_1024_BYTES).hex())")
        XCTAssertEqual(theirs, hex(DiffieHellmanGroup2.prime))
    }

    /// A whole exchange with secretstorage's client: both sides derive the same AES key, and a
    /// secret encrypted by either side (ours with libgcrypt, theirs with `cryptography`)
    /// decrypts on the other, padding included (17 bytes: two blocks).
    func testExchangeWithSecretstorage() throws {
        let ours = DiffieHellmanGroup2()
        let client = """
            import sys, os, secretstorage.dhcrypto as d
            from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
            from cryptography.hazmat.primitives import padding
            s = d.Session()
            s.set_server_public_key(int(sys.argv[1], 16))
            iv = os.urandom(16)
            p = padding.PKCS7(128).padder(); data = p.update(b"seventeen bytes!!") + p.finalize()
            e = Cipher(algorithms.AES(s.aes_key), modes.CBC(iv)).encryptor()
            print(d.int_to_bytes(s.my_public_key).hex(), s.aes_key.hex(), iv.hex(), (e.update(data) + e.finalize()).hex())
            """
        let fields = try python(client, [hex(ours.publicValue)]).split(separator: " ").map(String.init)
        XCTAssertEqual(fields.count, 4)
        let peer = try XCTUnwrap(bytes(fields[0]))
        let shared = try XCTUnwrap(ours.sharedValue(withPeer: peer))
        let key = HKDFSHA256.derive(from: shared, length: 16)
        XCTAssertEqual(key.withUnsafeBytes { hex($0) }, fields[1], "both sides derive the same key")

        let iv = try XCTUnwrap(bytes(fields[2]))
        let ciphertext = try XCTUnwrap(bytes(fields[3]))
        let plaintext = try XCTUnwrap(ciphertext.withUnsafeBytes { AES128CBC.decrypt($0, key: key, iv: iv) })
        XCTAssertEqual(plaintext.withUnsafeBytes { Array($0) }, Array("seventeen bytes!!".utf8))

        let sealed = AES128CBC.encrypt(Array("from the provider".utf8), key: key, iv: iv)
        let decrypt = """
            import sys
            from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
            from cryptography.hazmat.primitives import padding
            key, iv, data = (bytes.fromhex(a) for a in sys.argv[1:4])
            d = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor(); u = padding.PKCS7(128).unpadder()
            print((u.update(d.update(data) + d.finalize()) + u.finalize()).decode())
            """
        XCTAssertEqual(try python(decrypt, [fields[1], fields[2], hex(sealed)]), "from the provider")
    }

    /// A peer value that is not one of the group's is refused: empty, 0, 1, p-1, p, and longer
    /// than the prime. Leading zeros (secretstorage sends its value unpadded, others padded) are not.
    func testBadPeerValuesAreRefused() {
        let ours = DiffieHellmanGroup2()
        var primeMinusOne = DiffieHellmanGroup2.prime
        primeMinusOne[primeMinusOne.count - 1] -= 1
        for bad in [[], [0], [1], [0, 0, 1], primeMinusOne, DiffieHellmanGroup2.prime, [1] + [UInt8](repeating: 0, count: 128)] as [[UInt8]] {
            XCTAssertNil(ours.sharedValue(withPeer: bad), "\(bad.count) bytes")
        }
        XCTAssertNotNil(ours.sharedValue(withPeer: [0, 0, 2]))
        XCTAssertEqual(ours.publicValue.count, 128)
    }

    /// Ciphertexts that are not whole blocks, or whose padding is not PKCS#7's, are refused.
    func testBadCiphertextsAreRefused() {
        let key = SecureBytes.random(count: 16)
        let iv = RandomIV.make()
        let good = AES128CBC.encrypt(Array("x".utf8), key: key, iv: iv)
        XCTAssertEqual(good.count, 16)
        XCTAssertNil([UInt8]().withUnsafeBytes { AES128CBC.decrypt($0, key: key, iv: iv) })
        XCTAssertNil(Array(good.prefix(15)).withUnsafeBytes { AES128CBC.decrypt($0, key: key, iv: iv) })
        // Fixed keys: with a random wrong key, one decryption in about 256 ends in a valid pad
        // byte (0x01), so the check would fail by chance (it did, in the suite).
        let fixedKey = SecureBytes(copying: [UInt8](repeating: 0x11, count: 16)), fixedIV = [UInt8](repeating: 0x22, count: 16)
        let sealed = AES128CBC.encrypt(Array("x".utf8), key: fixedKey, iv: fixedIV)
        let wrongKey = SecureBytes(copying: [UInt8](repeating: 0x33, count: 16))
        XCTAssertNil(sealed.withUnsafeBytes { AES128CBC.decrypt($0, key: wrongKey, iv: fixedIV) }, "wrong key: bad padding")
        XCTAssertNil(good.withUnsafeBytes { AES128CBC.decrypt($0, key: key, iv: Array(iv.prefix(8))) })
        let empty = AES128CBC.encrypt([UInt8](), key: key, iv: iv)
        XCTAssertEqual(empty.count, 16, "an empty secret is one block of padding")
        XCTAssertEqual(empty.withUnsafeBytes { AES128CBC.decrypt($0, key: key, iv: iv) }?.count, 0)
    }

    private func bytes(_ hex: String) -> [UInt8]? {
        Hex.decode(hex)
    }
}
