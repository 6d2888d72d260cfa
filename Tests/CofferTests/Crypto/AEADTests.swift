import CSodium
import XCTest
@testable import Coffer

final class AEADTests: XCTestCase {
    let key = SecureBytes.random(count: 32)

    /// The constants match libsodium's XChaCha20-Poly1305-IETF.
    func testConstantsMatchLibsodium() {
        XCTAssertEqual(AEAD.keyLength, crypto_aead_xchacha20poly1305_ietf_keybytes())
        XCTAssertEqual(AEAD.nonceLength, crypto_aead_xchacha20poly1305_ietf_npubbytes())
        XCTAssertEqual(AEAD.tagLength, crypto_aead_xchacha20poly1305_ietf_abytes())
    }

    /// Seal then open round-trips, including an empty plaintext.
    func testRoundTrip() {
        for plaintext in [[UInt8](), Array("hello".utf8), [UInt8](repeating: 7, count: 10_000)] {
            let sealed = AEAD.seal(plaintext, key: key, associatedData: [1, 2])
            XCTAssertEqual(sealed.count, plaintext.count + 40)
            XCTAssertEqual(AEAD.open(sealed, key: key, associatedData: [1, 2]), plaintext)
        }
    }

    /// Every seal uses a fresh nonce, so equal plaintexts give different boxes.
    func testNoncesAreFresh() {
        XCTAssertNotEqual(AEAD.seal([1], key: key, associatedData: []), AEAD.seal([1], key: key, associatedData: []))
    }

    /// A flipped bit anywhere, other associated data, another key, or a short box all fail.
    func testForgeriesFail() {
        let sealed = AEAD.seal(Array("secret".utf8), key: key, associatedData: [1])
        for index in sealed.indices {
            var forged = sealed
            forged[index] ^= 0x01
            XCTAssertNil(AEAD.open(forged, key: key, associatedData: [1]), "byte \(index)")
        }
        XCTAssertNil(AEAD.open(sealed, key: key, associatedData: [2]))
        XCTAssertNil(AEAD.open(sealed, key: .random(count: 32), associatedData: [1]))
        XCTAssertNil(AEAD.open(Array(sealed.prefix(39)), key: key, associatedData: [1]))
        XCTAssertNil(AEAD.openSecret(Array(sealed.prefix(10)), key: key, associatedData: [1]))
    }

    /// Keys unwrap into guarded memory.
    func testOpenSecret() {
        let inner = SecureBytes.random(count: 32)
        let wrapped = AEAD.seal(inner, key: key, associatedData: [3])
        XCTAssertEqual(AEAD.openSecret(wrapped, key: key, associatedData: [3]), inner)
        XCTAssertNil(AEAD.openSecret(wrapped, key: key, associatedData: [4]))
    }
}
