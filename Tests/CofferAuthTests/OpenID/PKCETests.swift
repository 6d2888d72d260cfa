@testable import CofferAuth
import XCTest

final class PKCETests: XCTestCase {
    /// RFC 7636 Appendix B: the S256 challenge of the example verifier.
    func testS256KnownAnswer() {
        let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        XCTAssertEqual(pkce.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    /// A fresh verifier is 43 characters of the unreserved set, and never repeats.
    func testFreshVerifiers() {
        let verifiers = (0..<100).map { _ in PKCE().verifier }
        XCTAssertEqual(Set(verifiers).count, 100)
        for verifier in verifiers {
            XCTAssertEqual(verifier.count, 43)
            XCTAssertTrue(verifier.allSatisfy { $0.isLetter || $0.isNumber || "-._~".contains($0) }, verifier)
        }
    }
}
