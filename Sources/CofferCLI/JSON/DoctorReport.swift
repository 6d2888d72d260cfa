import Coffer
import CofferBase
import CofferCommandLine
import Foundation

/// What `coffer doctor` finds, printed as text or (`--json`) with these field names.
struct DoctorReport: Encodable {
    struct VaultReport: Encodable {
        let path: String
        let exists: Bool
        /// Octal, as `chmod` takes it.
        let fileMode: String?
        let folderMode: String?
        let id: String?
        let slots: [SlotSummary]?
        /// Why the vault does not open, when it does not.
        let problem: String?
    }

    let libsodium: String
    let libsecret: String
    let secretService: String
    let vault: VaultReport

    init(vault url: URL, secretServiceTimeout: Duration) throws {
        libsodium = LibraryVersions.libsodium
        libsecret = LibraryVersions.libsecret
        do {
            secretService = try SecretService.status(timeout: secretServiceTimeout).description
        } catch {
            secretService = "unusable (\(error))"
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            vault = VaultReport(path: url.path, exists: false, fileMode: nil, folderMode: nil, id: nil, slots: nil, problem: nil)
            return
        }
        let fileMode = Self.mode(of: url.path), folderMode = Self.mode(of: url.deletingLastPathComponent().path)
        do {
            let opened = try Vault.open(at: url)
            vault = VaultReport(
                path: url.path, exists: true, fileMode: fileMode, folderMode: folderMode, id: opened.id,
                slots: try opened.keySlots().map(SlotSummary.init), problem: nil)
        } catch {
            vault = VaultReport(
                path: url.path, exists: true, fileMode: fileMode, folderMode: folderMode, id: nil, slots: nil, problem: String(describing: error))
        }
    }

    /// The text `coffer doctor` prints: names escaped (TerminalText).
    var lines: [String] {
        var lines = ["libsodium: \(libsodium)", "libsecret: \(libsecret)", "secret service: \(secretService)"]
        lines.append("vault: \(TerminalText.escaped(vault.path))")
        guard vault.exists else { return lines + ["  (no vault here: create one with 'coffer init')"] }
        lines.append("  file mode: \(vault.fileMode ?? "unknown")")
        lines.append("  folder mode: \(vault.folderMode ?? "unknown")")
        if let problem = vault.problem { return lines + ["  problem: \(TerminalText.escaped(problem))"] }
        lines += ["  permissions: ok", "  id: \(vault.id ?? "")", "  slots:"]
        return lines + (vault.slots ?? []).map { "    " + Slots.line(for: $0) }
    }

    private static func mode(of path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let permissions = attributes[.posixPermissions] as? NSNumber
        else { return nil }
        return String(permissions.intValue & 0o7777, radix: 8)
    }
}
