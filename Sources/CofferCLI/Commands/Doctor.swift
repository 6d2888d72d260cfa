import ArgumentParser
import Coffer
import CofferCommandLine
import FoundationEssentials

struct Doctor: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Print the libraries, the Secret Service status, the vault's path and permissions, and its slots.",
        discussion: """
            Reads only: it needs no passphrase and changes nothing. Given a credential (--keyfile, \
            --passphrase-fd, $COFFER_PASSPHRASE, --unlock), it also reads the vault's access policy. It warns \
            when the policy is open, and when a key-file or Secret Service slot lets every program of yours \
            open the vault, so that per-application access cannot hold. Problems are printed, not raised, \
            so the exit status is 0.
            """)

    @ParentCommand var root: CofferCommand
    @Flag(help: "Print JSON: libsodium, libsecret, secretService, and vault (path, exists, fileMode, folderMode, id, slots, problem, policy, warnings).")
    var json = false

    var vaultOptions: VaultOptions? { root.vault }

    /// Whether a credential was given, so that the vault may be unlocked without asking anyone.
    private var credentialGiven: Bool {
        root.vault.keyFileURL != nil || root.vault.passphraseFD != nil || root.storeOptions.environment["COFFER_PASSPHRASE"] != nil
            || root.storeOptions.hasServiceCredential || (try? root.storeOptions.namedUnlockMethods()) != nil
    }

    func run() throws {
        let report = try DoctorReport(
            vault: try root.vault.url(), secretServiceTimeout: root.storeOptions.secretService.timeout, keyFile: root.vault.keyFileURL,
            unlock: credentialGiven ? { _ = try root.unlock($0) } : nil)
        if json { return try JSONOutput.write(report) }
        try StandardStreams.write(Array(report.lines.map { $0 + "\n" }.joined().utf8))
    }
}
