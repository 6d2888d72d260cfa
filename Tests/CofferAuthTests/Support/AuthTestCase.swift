import XCTest

/// A test case with a fresh ``AuthFixture`` (dev backend and vault) per test.
class AuthTestCase: XCTestCase {
    var fixture: AuthFixture!

    override func setUp() async throws {
        fixture = try await AuthFixture.start()
    }

    override func tearDown() async throws {
        await fixture?.stop()
    }
}
