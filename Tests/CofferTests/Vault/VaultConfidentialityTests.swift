import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

final class VaultConfidentialityTests: XCTestCase {
    /// The vault file (and its WAL, while open) holds no service, account, label, comment,
    /// attribute or secret in plaintext: names live only inside the ciphertext.
    func testNoPlaintextOnDisk() throws {
        let folder = TemporaryFolder()
        let needles = ["zebra-service", "yak-account", "walrus-label", "vole-comment", "urchin-key", "tapir-value", "SECRET-sloth-42"]
        let vault = try folder.makeVault()
        try vault.set(
            Data("SECRET-sloth-42".utf8), for: .genericPassword(service: "zebra-service", account: "yak-account"),
            options: ItemOptions(label: "walrus-label", comment: "vole-comment", custom: ["urchin-key": "tapir-value"]))
        try vault.set(Data("SECRET-sloth-42".utf8), for: .internetPassword(server: "zebra-service", account: "yak-account"))

        func assertClean(_ url: URL) throws {
            guard FileManager.default.fileExists(atPath: url.path) else { return }
            let bytes = try Data(contentsOf: url)
            for needle in needles {
                XCTAssertNil(bytes.range(of: Data(needle.utf8)), "\(needle) in \(url.lastPathComponent)")
                XCTAssertNil(bytes.range(of: Data(needle.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })))
            }
        }
        try assertClean(folder.file("test.vault"))
        try assertClean(folder.file("test.vault-wal"))
        _ = vault
    }
}
