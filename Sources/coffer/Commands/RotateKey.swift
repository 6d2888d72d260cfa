import ArgumentParser
import Coffer
import Foundation

struct RotateKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate-key",
        abstract: "Replace the vault key and re-encrypt every item.",
        discussion: "Every key slot must be opened by the unlock credential or one given here, so no slot is lost.")

    @ParentCommand var root: CofferCommand

    @Option(name: .customLong("also-keyfile"), help: ArgumentHelp("A key file that opens another slot (repeatable).", valueName: "path"))
    var keyFiles: [String] = []
    @Option(name: .customLong("also-passphrase-fd"), help: ArgumentHelp("A passphrase for another slot, from this descriptor (repeatable).", valueName: "n"))
    var passphraseFDs: [Int32] = []

    func run() throws {
        let credential = try root.vault.credential()
        let vault = try Vault.open(at: try root.vault.url(), unlock: credential)
        var credentials = [credential] + keyFiles.map { VaultCredential.keyFile(URL(fileURLWithPath: $0)) }
        for fd in passphraseFDs {
            credentials.append(.passphrase(try Passphrase.read(fd: fd, environmentName: "", prompt: "")))
        }
        try vault.rotateVaultKey(credentials: credentials)
        print("vault key rotated")
    }
}
