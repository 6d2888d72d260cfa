import CofferAuth
import Foundation
import XCTest

final class JSONValueTests: XCTestCase {
    /// Found by fuzzing (answers-json): the encoder leaves DEL as it is, and Mobile Client Access
    /// sends answers in an `Authorization` header, where DEL is not allowed (RFC 9110 §5.5).
    func testCompactJSONEscapesDeleteAndEveryOtherControlCharacter() {
        let answer: JSONValue = ["pin\u{7F}": "\u{0}\u{1F}\u{7F}\u{80}\u{2028}é😀"]
        let wire = answer.compactJSON
        XCTAssertTrue(wire.allSatisfy { (0x20...0x7E).contains($0) }, String(decoding: wire, as: UTF8.self))
        XCTAssertEqual(JSONValue(parsing: wire), answer)
    }

    /// Text that needs no escaping goes out as the encoder wrote it, keys sorted.
    func testCompactJSONOfPlainASCIIIsCompactAndSorted() {
        let answer: JSONValue = ["b": [1, true, .null], "a": "x/y"]
        XCTAssertEqual(String(decoding: answer.compactJSON, as: UTF8.self), #"{"a":"x/y","b":[1,true,null]}"#)
    }
}
