@testable import CofferDevBackend
import Foundation
import XCTest

/// The backend's JSON value: what it reads from requests and how it writes replies.
final class JSONTests: XCTestCase {
    /// Every kind reads as itself: `1` is a number and `true` a Boolean, never the other.
    func testReadingKeepsKinds() throws {
        let value = try XCTUnwrap(JSON(parsing: Data(#"{"n": 1, "b": true, "s": "1", "z": null, "a": [1.5, false], "o": {}}"#.utf8)))
        XCTAssertEqual(value, ["n": 1, "b": true, "s": "1", "z": .null, "a": [.number(1.5), false], "o": [:]])
        XCTAssertNil(value["n"]?.boolValue)
        XCTAssertNil(value["b"]?.numberValue)
        XCTAssertEqual(value["z"]?.isNull, true)
        XCTAssertNil(value["s"]?["x"], "a member of a non-object")
        for text in ["", "{", #"{"a":1}x"#, "nul"] {
            XCTAssertNil(JSON(parsing: Data(text.utf8)), text)
        }
    }

    /// Replies are compact, with sorted keys, whole numbers without a fraction (`expires_in`,
    /// millisecond times) and slashes as they are.
    func testWritingIsCompactAndSorted() {
        let value: JSON = ["expires_in": 3600, "at": .number(1_732_000_000_000), "uri": "http://127.0.0.1/cb", "null": .null, "list": [true, "x"]]
        XCTAssertEqual(String(decoding: value.text, as: UTF8.self),
                       #"{"at":1732000000000,"expires_in":3600,"list":[true,"x"],"null":null,"uri":"http://127.0.0.1/cb"}"#)
    }
}
