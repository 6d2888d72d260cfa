import Coffer
import CofferConformance
import CofferTestSupport
import XCTest

/// The shared store behaviours, over the Secret Service (gnome-keyring on the test bus).
final class SecretServiceStoreConformanceTests: CredentialStoreConformanceTests {
    override func makeStore() throws -> any CredentialStore {
        try SecretServiceTestEnvironment.requireAvailable()
        return SecretServiceStore()
    }

    /// The Secret Service store shows every behaviour of the conformance suite; fails naming the behaviour that broke.
    func testConformance() throws { try checkConformance() }
}
