@testable import CofferAuth
import XCTest

/// `--redirect-uri` and ``OpenIDClient/Configuration/redirectURI``: loopback `http` with an
/// explicit port, and nothing else.
final class LoopbackRedirectURITests: XCTestCase {
    /// 127.0.0.1, [::1] and localhost (which listens on 127.0.0.1) are accepted, and the URI is
    /// kept exactly as written, for providers that compare it byte for byte.
    func testLoopbackURIsWithAPortAreAccepted() throws {
        let cases: [(String, String, Int, String)] = [
            ("http://127.0.0.1:8400/callback", "127.0.0.1", 8400, "/callback"),
            ("http://[::1]:8401/cb", "::1", 8401, "/cb"),
            ("http://localhost:8402/coffer/callback", "127.0.0.1", 8402, "/coffer/callback"),
            ("http://127.0.0.1:8403", "127.0.0.1", 8403, "/"),
        ]
        for (text, address, port, path) in cases {
            let uri = try LoopbackRedirectURI(text)
            XCTAssertEqual(uri.uri, text)
            XCTAssertEqual(uri.bindAddress, address, text)
            XCTAssertEqual(uri.port, port, text)
            XCTAssertEqual(uri.path, path, text)
        }
    }

    /// Anything else is an invalid request (exit 64 in the CLI): another scheme or host, no port,
    /// a port out of range, a user, a query or a fragment.
    func testEverythingElseIsRefused() {
        for text in [
            "https://127.0.0.1:8400/callback", "http://example.com:8400/callback", "http://10.0.0.1:8400/cb", "http://127.0.0.1/callback",
            "http://127.0.0.1:0/cb", "http://127.0.0.1:70000/cb", "http://user@127.0.0.1:8400/cb", "http://127.0.0.1:8400/cb?x=1",
            "http://127.0.0.1:8400/cb#f", "127.0.0.1:8400", "", "http://127.0.0.2.evil.example:8400/cb", "http://localhost.:8400/cb",
        ] {
            XCTAssertThrowsError(try LoopbackRedirectURI(text), text) { error in
                guard case AuthError.invalidRequest = error else { return XCTFail("\(text): \(error)") }
            }
        }
    }
}
