import Foundation
import XCTest

/// The dev backend checks what the clients sign with its own code (Sources/CofferDevBackend/
/// Signatures), never with CofferAuth's protocol encoders and decoders, so that a mistake in the
/// client's signing is not mirrored by the server and missed. Plain utilities (JSONValue,
/// Base64URL, FormEncoding, HeaderName) may be shared.
final class SignatureIndependenceTests: XCTestCase {
    /// CofferAuth's protocol code: its signing, its wire formats and its reply readers.
    static let clientProtocolCode = [
        "ClientKey", "CompactJWS", "ClientAssertion", "MobileFirstWire", "MobileFirstReply", "MobileFirstRegistration",
        "ClientAccessWire", "ClientAccessReply", "ClientAccessRegistration", "ClientCertificate", "SecureJSON", "ChallengeRound",
        "MobileHubUsers", "ErrorReply", "ServerRefusal", "TokenEndpointReply", "TokenReply", "BearerChallenge",
        "MobileFirstPath", "ClientAccessPath",
    ]

    func testTheBackendUsesNoneOfTheClientsProtocolCode() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/CofferDevBackend")
        let files = try XCTUnwrap(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let words = Set(text.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
            for name in Self.clientProtocolCode where words.contains(name) {
                XCTFail("\(file.lastPathComponent) uses CofferAuth's \(name)")
            }
        }
    }
}
