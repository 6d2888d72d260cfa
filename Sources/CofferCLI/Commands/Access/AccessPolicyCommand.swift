import ArgumentParser
import Coffer
import CofferCommandLine

/// `coffer access policy [open|confirm|strict]`: prints or sets the vault's access policy.
struct AccessPolicyCommand: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "policy",
        abstract: "Print the vault's access policy, or set it: open, confirm or strict.",
        discussion: """
            open: every program of yours reads every item. confirm: an item's owner and the programs on \
            its access list read it; any other program is asked about. strict: any other program is \
            refused; only `coffer access grant` adds one. New vaults are confirm; a vault from before \
            access lists stays open until you change it. Setting it needs the vault's credential, never \
            the agent, and is logged in the audit log. With --json: policy (and previous, when set).
            """)

    @ParentCommand var root: CofferCommand
    @Argument(help: ArgumentHelp("The policy to set.", valueName: "policy")) var policy: PolicyName?
    @Flag(help: "Print JSON.") var json = false

    var vaultOptions: VaultOptions? { root.vault }

    struct Report: Encodable {
        let policy: String
        let previous: String?
    }

    func run() throws {
        let access = try AccessVault(root)
        let current = try access.vault.accessPolicy()
        var report = Report(policy: current.rawValue, previous: nil)
        if let policy = policy?.policy {
            if policy != current {
                try access.vault.setAccessPolicy(policy)
                try access.record(.policy, program: Program.current())
            }
            report = Report(policy: policy.rawValue, previous: current.rawValue)
        }
        if json { return try JSONOutput.write(report) }
        try StandardStreams.printLine(report.previous.map { "policy: \(report.policy) (was \($0))" } ?? report.policy)
    }
}

/// The policies the command line names.
enum PolicyName: String, ExpressibleByArgument, CaseIterable {
    case open, confirm, strict

    var policy: AccessPolicy {
        switch self {
        case .open: .open
        case .confirm: .confirm
        case .strict: .strict
        }
    }
}
