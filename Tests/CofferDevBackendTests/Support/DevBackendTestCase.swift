import CofferDevBackend
import CofferTestSupport
import XCTest

/// A test with a dev backend of its own on loopback, its clock the test's, and a raw client of it.
class DevBackendTestCase: XCTestCase {
    var backend: DevBackend!
    let clock = TestClock()
    var raw: RawClient { RawClient(backend: backend) }

    override func setUp() async throws {
        let clock = self.clock
        backend = try await DevBackend.start(DevBackend.Configuration(now: { clock.now }, logger: quietLogger))
    }

    override func tearDown() async throws {
        await backend.stop()
    }
}
