import CofferBase
import CofferTestSupport
import Dispatch
import Foundation
import XCTest
@testable import CofferSecretServiceProvider

/// The provider while its process runs on without it (docs/secret-service.md, "When the bus or
/// the name goes"): a closed bus and a lost name each stop it serving, and it says which, so
/// the agent can stop or report it.
final class InterruptionTests: XCTestCase {
    /// What the provider reported, in order.
    private let reported = Guarded<[SecretServiceProvider.Interruption]>([])

    private func waitForReport(_ expected: SecretServiceProvider.Interruption) -> Bool {
        for _ in 0..<250 {
            if reported.withLock({ $0.contains(expected) }) { return true }
            usleep(20_000)
        }
        return false
    }

    /// The bus ends under the provider (its daemon exits): the provider reports `busClosed`,
    /// once, and stops cleanly afterwards.
    func testAClosedBusIsReported() throws {
        let fixture = try ProviderFixture(onInterruption: { [reported] interruption in reported.withLock { $0.append(interruption) } })
        fixture.bus.end()
        XCTAssertTrue(waitForReport(.busClosed), "reported: \(reported.withLock { $0 })")
        fixture.provider.stop()
        XCTAssertEqual(reported.withLock { $0 }, [.busClosed], "once, and not again when the provider stops")
    }

    /// The name released (the one way the bus takes it from an owner that does not allow
    /// replacement): the provider reports `nameLost`, and serves no object any more, even to a
    /// client that calls its connection by its unique name.
    func testALostNameStopsServing() throws {
        let fixture = try ProviderFixture(onInterruption: { [reported] interruption in reported.withLock { $0.append(interruption) } })
        let uniqueName = Guarded<String?>(nil)
        let released = DispatchSemaphore(value: 0)
        fixture.provider.loop.perform { objects in
            uniqueName.withLock { $0 = objects.bus.uniqueName }
            try? objects.bus.releaseName(SecretServiceProvider.busName)
            released.signal()
        }
        XCTAssertEqual(released.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(waitForReport(.nameLost), "reported: \(reported.withLock { $0 })")
        XCTAssertFalse(try fixture.bus.hasOwner(SecretServiceProvider.busName))
        let name = try XCTUnwrap(uniqueName.withLock { $0 })
        let call = try fixture.run("gdbus", [
            "call", "--session", "--dest", name, "--object-path", "/org/freedesktop/secrets",
            "--method", "org.freedesktop.DBus.Properties.Get", "org.freedesktop.Secret.Service", "Collections",
        ])
        XCTAssertNotEqual(call.status, 0, "nothing is served: \(call.stdoutText)")
        XCTAssertTrue(call.stderrText.contains("org.freedesktop.DBus.Error.UnknownMethod") || call.stderrText.contains("UnknownObject"), call.stderrText)
    }
}
