import XCTest

/// Asserts that `output` is one line: `prefix`, then the typed refusal naming `program` (its
/// executable's path, and the pin when it has one) and `coffer access grant`.
func assertRefusal(_ output: String, _ prefix: String, program: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(output.hasPrefix("\(prefix)access denied to \(program)"), output, file: file, line: line)
    XCTAssertTrue(output.contains("`coffer access grant SERVICE ACCOUNT PROGRAM` allows it"), output, file: file, line: line)
    XCTAssertEqual(output.filter { $0 == "\n" }.count, 1, "one line", file: file, line: line)
    XCTAssertTrue(output.hasSuffix("\n"), file: file, line: line)
}
