import Coffer
import CofferConformance
import Foundation
import XCTest

/// The shared store behaviours, over the encrypted vault.
final class VaultConformanceTests: CredentialStoreConformanceTests {
    override func makeStore() throws -> any CredentialStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-conformance-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return try Vault.create(at: folder.appendingPathComponent("test.vault"), with: .key(.random(count: 32)))
    }

    override var timestampResolution: Duration { .milliseconds(10) }

    /// The vault shows every behaviour of the conformance suite; fails naming the behaviour that broke.
    func testConformance() throws { try checkConformance() }
}
