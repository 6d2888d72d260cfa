import CofferTestSupport
@testable import CofferDevBackend
import XCTest

/// A dev backend with its OpenID provider on 127.0.0.1, on a test clock: auto-approval as
/// `demo`, the device approval endpoint on, and no polling interval, unless a test changes
/// the configuration and restarts.
class OpenIDTestCase: XCTestCase {
    var backend: DevBackend!
    let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    var client: RawClient { RawClient(backend: backend) }
    var flow: OpenIDFlow { OpenIDFlow(client: client) }

    func configuration() -> DevBackend.Configuration {
        let clock = self.clock
        var configuration = DevBackend.Configuration(tokenLifetime: 300, now: { clock.now }, logger: quietLogger)
        configuration.openID.autoApproveUser = "demo"
        configuration.openID.deviceApprovalEndpoint = true
        configuration.openID.deviceInterval = 0
        return configuration
    }

    override func setUp() async throws {
        backend = try await DevBackend.start(configuration())
    }

    override func tearDown() async throws {
        await backend?.stop()
    }

    /// Stops the backend and starts one with `change` applied to the configuration.
    func restart(_ change: (inout DevBackend.Configuration) -> Void) async throws {
        await backend.stop()
        var configuration = configuration()
        change(&configuration)
        backend = try await DevBackend.start(configuration)
    }
}
