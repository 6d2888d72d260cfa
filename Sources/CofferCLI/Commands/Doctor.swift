import ArgumentParser
import Coffer
import CofferCommandLine
import Foundation

struct Doctor: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Print the libraries, the Secret Service status, the vault's path and permissions, and its slots.",
        discussion: "Reads only: it needs no passphrase and changes nothing. Problems are printed, not raised, so the exit status is 0.")

    @ParentCommand var root: CofferCommand
    @Flag(help: "Print JSON: libsodium, libsecret, secretService, and vault (path, exists, fileMode, folderMode, id, slots, problem).")
    var json = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let report = try DoctorReport(vault: try root.vault.url(), secretServiceTimeout: root.storeOptions.secretService.timeout)
        if json { return try JSONOutput.write(report) }
        try StandardStreams.write(Array(report.lines.map { $0 + "\n" }.joined().utf8))
    }
}
