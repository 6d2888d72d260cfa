import CofferBase
import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class SHA256HasherTests: XCTestCase {
    /// SHA-256 as FIPS 180-2 gives it ("abc", and the empty message), in one piece or streamed in
    /// pieces of any size.
    func testKnownVectorsWholeAndStreamed() {
        XCTAssertEqual(Hex.encode(SHA256Hasher.digest(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(Hex.encode(SHA256Hasher.digest([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        var streamed = SHA256Hasher()
        for piece in [message.prefix(1), message[1..<30], message[30...]] { Array(piece).withUnsafeBytes { streamed.update($0) } }
        XCTAssertEqual(Hex.encode(streamed.finish()), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    /// A file's digest is the digest of its bytes, through a symbolic link too; a folder, a
    /// FIFO (without blocking) and a missing file have none.
    func testTheDigestOfAFile() throws {
        let folder = TemporaryFolder()
        let file = folder.file("abc")
        try Data("abc".utf8).write(to: file)
        XCTAssertEqual(SHA256Hasher.digest(ofFileAt: file.path), SHA256Hasher.digest(Array("abc".utf8)))
        try FileManager.default.createSymbolicLink(atPath: folder.file("link").path, withDestinationPath: file.path)
        XCTAssertEqual(SHA256Hasher.digest(ofFileAt: folder.file("link").path), SHA256Hasher.digest(Array("abc".utf8)))
        XCTAssertNil(SHA256Hasher.digest(ofFileAt: folder.url.path))
        XCTAssertEqual(mkfifo(folder.file("fifo").path, 0o600), 0)
        XCTAssertNil(SHA256Hasher.digest(ofFileAt: folder.file("fifo").path))
        XCTAssertNil(SHA256Hasher.digest(ofFileAt: folder.file("missing").path))
    }
}
