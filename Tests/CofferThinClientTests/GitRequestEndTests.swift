import CofferAgentWire
import XCTest

/// git's request ends at its first blank line, `\n` or `\r\n` (git-credential(1)), however its
/// bytes arrive: the thin git-credential-coffer reads up to it and no further.
final class GitRequestEndTests: XCTestCase {
    private func arrival(_ text: String, inChunksOf size: Int) -> Bool {
        let bytes = Array(text.utf8)
        let end = GitRequestEnd()
        var read: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: size) {
            read += bytes[start..<min(start + size, bytes.count)]
            if end.isRead(in: read) { return true }
        }
        return false
    }

    func testABlankLineEndsTheRequestInAnyChunks() {
        for size in [1, 2, 3, 7, 100] {
            XCTAssertTrue(arrival("protocol=https\nhost=a\n\n", inChunksOf: size), "LF, chunks of \(size)")
            XCTAssertTrue(arrival("protocol=https\r\nhost=a\r\n\r\n", inChunksOf: size), "CRLF, chunks of \(size)")
            XCTAssertTrue(arrival("\n", inChunksOf: size), "an empty request")
            XCTAssertFalse(arrival("protocol=https\nhost=a\n", inChunksOf: size), "no blank line yet")
            XCTAssertFalse(arrival("protocol=https\n\r\r\n", inChunksOf: size), "a line of a carriage return before the CR LF is not blank")
            XCTAssertFalse(arrival("protocol=https\n \n", inChunksOf: size), "a space is not blank")
        }
    }

    func testTheBlankLineIsLineFeedOrCarriageReturnLineFeedAlone() {
        XCTAssertTrue(GitRequestEnd.isBlankLine(Array("\n".utf8)))
        XCTAssertTrue(GitRequestEnd.isBlankLine(Array("\r\n".utf8)))
        XCTAssertFalse(GitRequestEnd.isBlankLine(Array("\r".utf8)))
        XCTAssertFalse(GitRequestEnd.isBlankLine(Array("x\n".utf8)))
        XCTAssertFalse(GitRequestEnd.isBlankLine([UInt8]()))
    }
}
