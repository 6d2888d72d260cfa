import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// The registry of key-slot kinds, and how each kind shows its slots.
final class KeySlotKindTests: XCTestCase {
    /// The registry lists each kind of docs/vault-format.md 4.1 once, by its `kind` column, and
    /// finds no other: a row of another kind is one this version does not know.
    func testTheRegistryListsEachKindOfTheFormatOnce() {
        XCTAssertEqual(KeySlotKinds.all.map { $0.name }, ["passphrase", "keyfile", "key", "secret-service", "systemd-creds"])
        for kind in KeySlotKinds.all { XCTAssertTrue(KeySlotKinds.named(kind.name) == kind, kind.name) }
        XCTAssertNil(KeySlotKinds.named("future-kind"))
        XCTAssertNil(KeySlotKinds.named("Passphrase"), "kind names are compared exactly")
    }

    /// Each kind's slots show with their kind's case, `kind` column and words: the ones a vault
    /// makes here (passphrase, key file, key), and from their stored columns the Secret Service,
    /// `systemd-creds` and unknown kinds.
    func testEachKindDescribesItsSlots() throws {
        let folder = TemporaryFolder()
        let vault = try folder.makeVault()
        try KeyFile.generate(at: folder.file("k.key"))
        try vault.addKeySlot(.keyFile(folder.file("k.key")))
        try vault.addKeySlot(.key(.random(count: 32)))
        let slots = try vault.keySlots()
        XCTAssertEqual(slots.map(\.kind), [.passphrase(.test), .keyFile, .key])
        XCTAssertEqual(slots.map(\.kindName), ["passphrase", "keyfile", "key"])
        XCTAssertEqual(slots.map(\.description), ["slot 1: passphrase, \(PassphraseCost.test)", "slot 2: key file", "slot 3: key"])

        let secretService = SecretServiceSlot.describe(.none)
        XCTAssertEqual(secretService.kind, .secretService)
        XCTAssertEqual(secretService.summary, "Secret Service")

        let sealed = SealedKEK(credential: Array("not a credential".utf8), tpm2Device: "/dev/tpmrm0")
        let systemdCreds = SystemdCredsSlot.describe(sealed.parameters)
        XCTAssertEqual(systemdCreds.kind, .systemdCredential(SystemdCredentials.Binding(keySource: .unknown, pcrs: [], tpm2Device: "/dev/tpmrm0")))
        XCTAssertEqual(systemdCreds.summary, "systemd-creds, key unknown, device /dev/tpmrm0")

        let unknown = try SlotRow.validated(
            id: 7, kind: "future-kind", kdf: "scrypt", opslimit: 1, memlimit: nil, salt: [1], wrappedKey: [], created: 0)
        XCTAssertEqual(unknown.publicSlot.kind, .other("future-kind"))
        XCTAssertEqual(unknown.publicSlot.description, "slot 7: future-kind (unknown kind)")
    }
}
