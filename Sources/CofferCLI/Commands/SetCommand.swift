import ArgumentParser
import Coffer
import CofferCommandLine
import FoundationEssentials

struct SetCommand: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Store a secret read from stdin (never from the command line).",
        discussion: """
            The bytes on stdin are stored exactly, newline included: use printf '%s'. On a terminal, the secret is read without echo. \
            A new item's owner is the program that stores it (coffer itself, when it opens the vault here). --allow and --allow-pinned also put programs on the item's access list, as \
            `coffer access grant` does: the vault is then opened here with its credential, never through the agent.
            """)

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector

    @Option(help: "A human-readable label.") var label: String?
    @Option(help: "A comment.") var comment: String?
    @Option(name: .customLong("expires-in"), help: ArgumentHelp("Expire the item after this many seconds (1 to 10^12).", valueName: "seconds"))
    var expiresIn: Int64?
    @Option(name: .customLong("attribute"), help: ArgumentHelp("A custom attribute (repeatable).", valueName: "name=value"))
    var attributes: [String] = []

    @Option(name: .customLong("allow"), help: ArgumentHelp(
        "Let this program (its executable's absolute path) read the item without being asked (repeatable; see coffer access grant).",
        valueName: "program"))
    var allow: [String] = []
    @Option(name: .customLong("allow-pinned"), help: ArgumentHelp(
        "As --allow, pinned to the executable's SHA-256: a modified file no longer matches (repeatable).", valueName: "program"))
    var allowPinned: [String] = []

    /// The longest `--expires-in`: about 31 700 years.
    static let maxExpiresIn: Int64 = 1_000_000_000_000

    var vaultOptions: VaultOptions? { root.vault }

    func run() throws {
        if let expiresIn, !(1...Self.maxExpiresIn).contains(expiresIn) {
            throw CofferError.invalidArgument(reason: "--expires-in takes 1 to \(Self.maxExpiresIn) seconds")
        }
        var custom: [String: String] = [:]
        for pair in attributes {
            guard let equals = pair.firstIndex(of: "=") else { throw CLIError.usage("--attribute takes name=value") }
            custom[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        let options = ItemOptions(
            label: label, comment: comment, custom: custom,
            expiresAt: expiresIn.map { Date().addingTimeInterval(TimeInterval($0)) })
        let allowed = try allow.map { try Self.program($0, naming: "--allow", pinned: false) }
            + allowPinned.map { try Self.program($0, naming: "--allow-pinned", pinned: true) }
        let secret = try readSecret()
        guard !allowed.isEmpty else { return try root.store().set(secret, for: item.id, options: options) }
        // Seeding the access list is a grant: it takes the vault's credential, never the agent.
        let access = try AccessVault(root)
        for program in try access.vault.set(secret, for: item.id, options: options, owner: Program.current(), allowing: allowed) {
            try access.record(.grant, item: item.id, program: program)
        }
    }

    private static func program(_ text: String, naming name: String, pinned: Bool) throws -> Program {
        let (path, digest) = try ProgramPaths.executable(text, naming: name, pinned: pinned, mustExist: true)
        return try Program(executablePath: path, executableDigest: digest, executablePinned: pinned)
    }

    private func readSecret() throws -> Data {
        if Terminal.stdinIsTerminal {
            guard let secret = Terminal.readHidden(prompt: "Secret: ") else { throw CLIError.usage("cannot read the terminal") }
            return secret.withUnsafeBytes { Data($0) }
        }
        guard let secret = try DescriptorInput.readAll(0, limit: Limits.maxSecretBytes) else {
            throw CofferError.secretTooLarge(size: Limits.maxSecretBytes + 1, limit: Limits.maxSecretBytes)
        }
        return secret.withUnsafeBytes { Data($0) }
    }
}
