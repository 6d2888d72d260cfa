import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine
import FoundationEssentials

/// `coffer access log`: the vault's audit log, newest first.
struct AccessLog: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "Print the vault's audit log, newest first: who read, wrote, was granted or refused which item.",
        discussion: """
            Text output is one entry per line, tab-separated: time (UTC), program, front door (agent, \
            secret-service, cli, credential-helper), action (read, write, delete, list, grant, revoke, \
            policy), service, account (both empty for a listing or a policy change) and decision (owner, \
            allowed, once, always, open, credential, denied, no-prompter, timed-out). The log is encrypted \
            like the items, so this needs the vault's credential. With --json: an array of time, program, \
            frontDoor, action, item (class, service, account) and decision.
            """)

    @ParentCommand var root: CofferCommand
    @Flag(help: "Print a JSON array.") var json = false
    @Option(help: ArgumentHelp(
        "Only entries at or after this time: 2026-11-27, 2026-11-27T14:00:00Z or with fractional seconds (UTC unless an offset is given).",
        valueName: "date"))
    var since: LogDate?
    @Option(help: ArgumentHelp("At most this many entries (the newest).", valueName: "n")) var limit: Int?

    var vaultOptions: VaultOptions? { root.vault }

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit takes a positive number") }
    }

    func run() throws {
        let vault = try AccessVault(root).vault
        let entries = try vault.auditLog(since: since?.date, limit: limit ?? Int.max)
        if json { return try JSONOutput.write(entries.map(AuditEntryJSON.init)) }
        let formatter = Date.ISO8601FormatStyle()
        let lines = entries.map { entry in
            [
                formatter.format(entry.time), entry.program?.description ?? "(unidentified)", entry.frontDoor.rawValue,
                entry.action.rawValue, TerminalText.escaped(entry.item?.service ?? ""), TerminalText.escaped(entry.item?.account ?? ""),
                entry.decision.rawValue,
            ].joined(separator: "\t") + "\n"
        }
        try StandardStreams.write(Array(lines.joined().utf8))
    }
}
