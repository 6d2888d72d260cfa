import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine

struct Check: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        abstract: "Check the whole vault: every page, key slot and record.",
        discussion: """
            Runs SQLite's integrity check, checks the tables and key slots, and opens every \
            record, checking that it follows the format and sits in the row its names give. \
            Prints each problem on a line of its own, then a summary. Exit status 0 when the \
            vault is sound, \(ExitStatus.integrityFailure.rawValue) when anything is wrong, with one line on stderr. Unlike `get`, which cannot tell a row \
            hidden by damage from an absent one, a clean check means every row is sound.
            """)

    @ParentCommand var root: CofferCommand
    @Flag(help: "Print JSON: sound, soundRecords and problems (an array of text); the exit status and stderr line are the same.") var json = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let report = try root.openVault().verify()
        if json {
            try JSONOutput.write(CheckJSON(sound: report.isClean, soundRecords: report.soundRecords, problems: report.problems.map(\.description)))
        } else {
            let lines = report.problems.map { "problem: " + TerminalText.escaped($0.description) }
                + ["\(report.soundRecords) sound record(s), \(report.problems.count) problem(s)"]
            try StandardStreams.write(Array(lines.map { $0 + "\n" }.joined().utf8))
        }
        guard report.isClean else {
            throw CLIError(message: "the vault has \(report.problems.count) problem(s)", exitStatus: .integrityFailure)
        }
    }
}
