import ArgumentParser
import Coffer
import CofferCommandLine
import Foundation

struct Doctor: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Print the libraries, the Secret Service status, the vault's path and permissions, and its slots.",
        discussion: "Reads only: it needs no passphrase and changes nothing. Problems are printed, not raised, so the exit status is 0.")

    @ParentCommand var root: CofferCommand

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        try StandardStreams.write(Array(try report().map { $0 + "\n" }.joined().utf8))
    }

    private func report() throws -> [String] {
        var lines = [
            "libsodium: \(LibraryVersions.libsodium)",
            "libsecret: \(LibraryVersions.libsecret)",
            "secret service: \(secretServiceStatus())",
        ]
        let url = try root.vault.url()
        lines.append("vault: \(TerminalText.escaped(url.path))")
        guard FileManager.default.fileExists(atPath: url.path) else {
            return lines + ["  (no vault here: create one with 'coffer init')"]
        }
        lines.append("  file mode: \(mode(of: url.path))")
        lines.append("  folder mode: \(mode(of: url.deletingLastPathComponent().path))")
        do {
            let vault = try Vault.open(at: url)
            lines += ["  permissions: ok", "  id: \(vault.id)", "  slots:"]
            lines += try vault.keySlots().map { "    " + Slots.line(for: $0) }
        } catch {
            lines.append("  problem: \(TerminalText.escaped(String(describing: error)))")
        }
        return lines
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
