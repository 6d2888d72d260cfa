import ArgumentParser
import Coffer
import Foundation

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the libraries, the Secret Service status, the vault's path and permissions, and its slots.",
        discussion: "Reads only: it needs no passphrase and changes nothing. Problems are printed, not raised, so the exit status is 0.")

    @ParentCommand var root: CofferCommand

    func run() throws {
        print("libsodium: \(LibraryVersions.libsodium)")
        print("libsecret: \(LibraryVersions.libsecret)")
        print("secret service: \(secretServiceStatus())")

        let url = try root.vault.url()
        print("vault: \(url.path)")
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("  (no vault here: create one with 'coffer init')")
            return
        }
        print("  file mode: \(mode(of: url.path))")
        print("  folder mode: \(mode(of: url.deletingLastPathComponent().path))")
        do {
            let vault = try Vault.open(at: url)
            print("  permissions: ok")
            print("  id: \(vault.id)")
            print("  slots:")
            for slot in try vault.keySlots() { print("    " + Slots.line(for: slot)) }
        } catch {
            print("  problem: \(error)")
        }
    }

    private func secretServiceStatus() -> String {
        let timeout = root.storeOptions.secretService.timeout
        do {
            return try SecretService.status(timeout: timeout).description
        } catch {
            return "unusable (\(error))"
        }
    }

    private func mode(of path: String) -> String {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let permissions = attributes[.posixPermissions] as? NSNumber
        else { return "unknown" }
        return String(permissions.intValue & 0o7777, radix: 8)
    }
}
