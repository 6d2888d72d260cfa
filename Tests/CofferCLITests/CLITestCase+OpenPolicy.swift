import Coffer
import Foundation

extension CLITestCase {
    /// Sets the test vault's access policy to `open`, as a vault from before per-application
    /// access has: for the tests where one program (`coffer set`, a script) stores what another
    /// (secret-tool) reads, and which test something else than who may read.
    func openAccessPolicy() throws {
        let opened = try Vault.open(at: vault, unlock: .passphrase(passphrase))
        defer { opened.lock() }
        try opened.setAccessPolicy(.open)
    }
}
