import CofferAuth
import Foundation
import XCTest
@testable import CofferAuth

/// The text checks every reply goes through: header names and media types compare ASCII letters
/// without case (RFC 9110, 5.1 and 8.3.1), with HTTP's optional whitespace around a media
/// type; and a form body escapes every byte outside its unreserved set (RFC 6749, Appendix B).
final class HTTPTextTests: XCTestCase {
    func testJSONMediaTypes() {
        for json in ["application/json", "Application/JSON", "application/json; charset=utf-8", " application/json ;charset=UTF-8",
                     "\tapplication/problem+json", "APPLICATION/JWK-SET+JSON"] {
            XCTAssertTrue(MediaType.isJSON(json), json)
        }
        for other in [nil, "", "text/json", "application/jsonx", "application/json-seq", "application/x-www-form-urlencoded",
                      "text/html; charset=application/json", "+json"] {
            XCTAssertFalse(MediaType.isJSON(other), other ?? "nil")
        }
    }

    func testHeaderNamesCompareWithoutCase() {
        let reply = HTTPReply(status: 200, headers: [(name: "content-TYPE", value: "a"), (name: "Content-Type", value: "b"), (name: "X-Ä", value: "c")], body: Data())
        XCTAssertEqual(reply.header("Content-Type"), "a", "the first of its name")
        XCTAssertEqual(reply.header("CONTENT-type"), "a")
        XCTAssertNil(reply.header("Content-Typ"))
        XCTAssertEqual(reply.header("x-Ä"), "c")
        XCTAssertNil(reply.header("x-ä"), "only ASCII letters fold")
    }

    func testFormEscaping() {
        XCTAssertEqual(FormEncoding.escape("aZ09-._*"), "aZ09-._*")
        XCTAssertEqual(FormEncoding.escape("a b&c=d/é~+%"), "a+b%26c%3Dd%2F%C3%A9%7E%2B%25")
        XCTAssertEqual(FormEncoding.encode([("grant_type", "refresh_token"), ("refresh_token", "x y")]), "grant_type=refresh_token&refresh_token=x+y")
        for text in ["", "é", "a b&c=d", String(decoding: (1...255).map { UInt8($0) }.filter { $0 < 0x80 }, as: UTF8.self)] {
            XCTAssertEqual(FormEncoding.unescape(Substring(FormEncoding.escape(text))), text, "round trip of \(text.debugDescription)")
        }
    }
}
