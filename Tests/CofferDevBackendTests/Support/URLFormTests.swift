@testable import CofferDevBackend
import XCTest

/// How the backend reads and writes form text (bodies, queries, redirects), with Hummingbird's
/// decoder and Foundation's percent-encoding.
final class URLFormTests: XCTestCase {
    /// Pairs come back in order with repeats kept; `+` is a space and `%XX` a byte in names and
    /// values; a name without `=` has an empty value.
    func testPairsKeepOrderAndRepeats() throws {
        let pairs = try XCTUnwrap(URLForm.pairs("state=a&scope=openid+profile&state=b&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&flag&empty="))
        XCTAssertEqual(pairs.map(\.name), ["state", "scope", "state", "redirect_uri", "flag", "empty"])
        XCTAssertEqual(pairs.map(\.value), ["a", "openid profile", "b", "http://127.0.0.1/cb", "", ""])
        XCTAssertEqual(URLForm.pairs("")?.count, 0)
    }

    /// A bad escape and a bracketed name (which Hummingbird reads as nesting) make the whole
    /// text malformed; so does a repeat in a body. Escaped bytes that are not UTF-8 read as U+FFFD.
    func testMalformedTextIsRefused() {
        for text in ["a=%zz", "a=%4", "%zz=1", "a[b]=1", "ok=1&a[]=2"] {
            XCTAssertNil(URLForm.pairs(text), text)
        }
        XCTAssertEqual(URLForm.pairs("a=%FF")?.first?.value, "\u{FFFD}")
        XCTAssertThrowsError(try FormBody.parse("grant_type=password&grant_type=password")) { error in
            XCTAssertEqual((error as? FormBody.Refusal)?.description, "grant_type is repeated")
        }
    }

    /// What the backend encodes reads back as the same text, whatever it holds.
    func testEncodedPairsReadBack() throws {
        let pairs = [("a b", "x+y&z=1"), ("wl_result", #"{"WL-Authentication-Failure":{"realm":{"reason":"é / ?"}}}"#), ("%", "")]
        let text = URLForm.encode(pairs)
        XCTAssertTrue(text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~%=&".contains($0)) }, text)
        let read = try XCTUnwrap(URLForm.pairs(text))
        XCTAssertEqual(read.map(\.name), pairs.map(\.0))
        XCTAssertEqual(read.map(\.value), pairs.map(\.1))
    }

    /// A client id or secret from HTTP Basic is one form-encoded value (RFC 6749 §2.3.1).
    func testOneValue() {
        XCTAssertEqual(URLForm.value("a%2Bb+c%3A"), "a+b c:")
        XCTAssertEqual(URLForm.value("coffer-cli"), "coffer-cli")
        XCTAssertNil(URLForm.value("a&b"))
        XCTAssertNil(URLForm.value("%"))
    }
}
