@testable import CofferAuth
import Foundation
import XCTest

/// `JSONValue(parsing:)` reads RFC 8259 JSON strictly: every valid text gives the value that
/// Foundation's `JSONDecoder` gave before (the reader it replaced), every text that is not JSON
/// is refused, and the documented choices refuse what `JSONDecoder` may take.
final class JSONParserTests: XCTestCase {
    private func parsed(_ text: String) -> JSONValue? {
        JSONValue(parsing: Data(text.utf8))
    }

    private func decodedByFoundation(_ data: Data) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Valid texts, each read as Foundation's decoder reads it.
    func testValidTextsGiveTheValuesFoundationGives() throws {
        let texts = [
            "{}", "[]", "\"\"", "0", "-0", "-0.5e+3", "1E2", "12.25", "true", "false", "null", " \t\r\n[1, 2.5 ,\"x\"] \n",
            #"{"access_token":"a.b-c_d","expires_in":3600,"scope":"openid offline_access","nested":{"list":[true,false,null,{}]}}"#,
            #""caf\u00e9 \ud83d\ude00 \"quoted\" back\\slash \/ \b\f\n\r\t""#, "\"raw é 😀\"", #""\u0000""#,
        ]
        for text in texts {
            let value = try XCTUnwrap(parsed(text), text)
            XCTAssertEqual(value, decodedByFoundation(Data(text.utf8)), text)
        }
        XCTAssertEqual(parsed(#""\ud83d\ude00""#), .string("😀"))
        XCTAssertEqual(parsed("[1,2]"), .array([.number(1), .number(2)]))
        XCTAssertEqual(JSONValue(parsing: Data([0xEF, 0xBB, 0xBF] + Array("{\"a\":1}".utf8))), .object(["a": .number(1)]), "a UTF-8 byte order mark is skipped")
    }

    /// A zero may have an exponent (RFC 8259 §6): `0E2` and `-0.0e2` are zero. Foundation's
    /// `JSONDecoder` refuses both (the refusals of valid JSON the fuzz target `json` found);
    /// this reader follows the RFC.
    func testAZeroWithAnExponentIsANumber() {
        XCTAssertEqual(parsed("[0E2, 0e+2, -0e-1, -0.0e2, 0.5E1]"), .array([.number(0), .number(0), .number(-0.0), .number(-0.0), .number(5)]))
        XCTAssertNil(parsed("[00E2]"))
    }

    /// Texts that are not JSON are refused, here as by Foundation.
    func testTextsThatAreNotJSONAreRefused() {
        let texts = [
            "", " ", "{", "}", "01", "1.", ".5", "+1", "1e", "-", "tru", "nul", "nan", "Infinity",
            #""\x""#, #""\u12""#, #""\u12G4""#, "\"a\nb\"", "\"abc", "1 2", #"{"a" 1}"#, "{1:2}", "[1 2]", "[1,,2]", "'a'",
            #"{"a":1}x"#,
        ]
        for text in texts {
            XCTAssertNil(parsed(text), text)
            XCTAssertNil(decodedByFoundation(Data(text.utf8)), "Foundation refuses \(text) too")
        }
        XCTAssertNil(JSONValue(parsing: Data([0x22, 0xFF, 0x22])), "invalid UTF-8 in a string")
        XCTAssertNil(JSONValue(parsing: Data([0x22, 0xC3, 0x22])), "a cut UTF-8 sequence")
    }

    /// The choices: a trailing comma (which Foundation's decoder takes), a name twice in one
    /// object, a lone surrogate escape, a number beyond `Double`, and nesting deeper than 128
    /// are refused.
    func testTheDocumentedChoicesRefuse() {
        XCTAssertNil(parsed("[1,]"))
        XCTAssertNil(parsed(#"{"a":1,}"#))
        XCTAssertNil(parsed(#"{"access_token":"a","access_token":"b"}"#))
        XCTAssertNil(parsed(#""\ud800""#))
        XCTAssertNil(parsed(#""\udc00\ud800""#))
        XCTAssertNil(parsed("1e400"))
        XCTAssertNil(parsed("-1e400"))
        XCTAssertNotNil(parsed(String(repeating: "[", count: 128) + String(repeating: "]", count: 128)))
        XCTAssertNil(parsed(String(repeating: "[", count: 129) + String(repeating: "]", count: 129)))
        XCTAssertNil(parsed(String(repeating: "{\"a\":", count: 100_000)), "deep nesting ends in a refusal, not a crash")
    }
}
