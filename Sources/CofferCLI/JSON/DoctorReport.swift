import Coffer
import CofferBase
import CofferCommandLine
import FoundationEssentials
import Glibc

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
        /// The access policy: known without a credential for a vault from before access lists
        /// (open), else read when a credential is given; left out when it cannot be told.
        let policy: String?
        /// What keeps per-application access from holding (docs/security.md).
        let warnings: [String]?
    }

    let libsodium: String
    let libsecret: String
    let secretService: String
    let vault: VaultReport

    /// `keyFile`: the key file named on the command line, if any. `unlock`: unlocks the vault
    /// with the credential given, when one is (doctor asks nobody).
    init(vault url: URL, secretServiceTimeout: Duration, keyFile: URL?, unlock: ((Vault) throws -> Void)?) throws {
        libsodium = LibraryVersions.libsodium
        libsecret = LibraryVersions.libsecret
        do {
            secretService = try SecretService.status(timeout: secretServiceTimeout).description
        } catch {
            secretService = "unusable (\(error))"
        }
        guard FileManager.default.fileExists(atPath: url.path) else {
            vault = VaultReport(
                path: url.path, exists: false, fileMode: nil, folderMode: nil, id: nil, slots: nil, problem: nil, policy: nil, warnings: nil)
            return
        }
        let fileMode = Self.mode(of: url.path), folderMode = Self.mode(of: url.deletingLastPathComponent().path)
        do {
            let opened = try Vault.open(at: url)
            let slots = try opened.keySlots()
            let policy = try Self.policy(of: opened, unlock: unlock)
            vault = VaultReport(
                path: url.path, exists: true, fileMode: fileMode, folderMode: folderMode, id: opened.id,
                slots: slots.map(SlotSummary.init), problem: nil, policy: policy?.rawValue,
                warnings: AccessWarnings.warnings(policy: policy, slots: slots, keyFile: keyFile))
        } catch {
            vault = VaultReport(
                path: url.path, exists: true, fileMode: fileMode, folderMode: folderMode, id: nil, slots: nil, problem: String(describing: error),
                policy: nil, warnings: nil)
        }
    }

    /// The policy, when a vault from before access lists tells it without a key, or `unlock`
    /// opens the vault; `nil` otherwise (a wrong credential is no problem of the vault's).
    private static func policy(of vault: Vault, unlock: ((Vault) throws -> Void)?) throws -> AccessPolicy? {
        if let policy = try vault.accessPolicyWhileLocked() { return policy }
        guard let unlock, (try? unlock(vault)) != nil else { return nil }
        return try vault.accessPolicy()
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
        lines += (vault.slots ?? []).map { "    " + Slots.line(for: $0) }
        lines.append("  access policy: " + (vault.policy ?? "unknown (the vault is locked: give its passphrase or key file to read it)"))
        return lines + (vault.warnings ?? []).map { "  warning: " + TerminalText.escaped($0) }
    }

    private static func mode(of path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return String(info.st_mode & 0o7777, radix: 8)
    }
}
