import ArgumentParser
import Coffer
import CofferBase
import CofferCommandLine

/// `coffer access show SERVICE ACCOUNT`: the item's owner and access list, and the vault's policy.
struct AccessShow: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print an item's owner, the programs allowed to read it, and the vault's policy.",
        discussion: """
            Text output is one line each: `owner: PROGRAM`, `allowed: PROGRAM` (or `allowed: none`), \
            `policy: POLICY`. A program shows its executable, its script (`running`), its sandbox (`in`), \
            its systemd service (`as`) and the digests it is pinned to; characters that are not printable \
            are escaped. With --json: class, service, account, owner, allowed and policy (docs/access.md).
            """)

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector
    @Flag(help: "Print JSON.") var json = false

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        let vault = try AccessVault(root).vault
        guard let access = try vault.access(for: item.id) else { throw CofferError.itemNotFound }
        let policy = try vault.accessPolicy()
        if json { return try JSONOutput.write(AccessShowJSON(item: item.id, access: access, policy: policy)) }
        var lines = ["owner: " + (access.owner?.description ?? "none (the item is older than owners)")]
        lines += access.allowed.isEmpty ? ["allowed: none"] : access.allowed.map { "allowed: " + $0.description }
        lines.append("policy: " + policy.rawValue)
        try StandardStreams.write(Array(lines.map { $0 + "\n" }.joined().utf8))
    }
}
