import Coffer
import CofferConformance
import XCTest

/// The shared store behaviours, over ``InMemoryStore``.
final class InMemoryStoreConformanceTests: CredentialStoreConformanceTests {
    override func makeStore() throws -> any CredentialStore { InMemoryStore() }
    override var timestampResolution: Duration { .milliseconds(10) }

    /// InMemoryStore shows every behaviour of the conformance suite; fails naming the behaviour that broke.
    func testConformance() throws { try checkConformance() }
}
