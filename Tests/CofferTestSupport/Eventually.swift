import XCTest

/// Waits until `condition` holds, checking every 10 ms; fails the test after `timeout`.
public func eventually(
    _ what: String, timeout: Duration = .seconds(20), file: StaticString = #filePath, line: UInt = #line,
    _ condition: @Sendable () async -> Bool
) async {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return }
        try? await Task.sleep(for: .milliseconds(10))
    }
    XCTFail("timed out waiting until \(what)", file: file, line: line)
}
