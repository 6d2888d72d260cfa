import ArgumentParser
import Coffer
import CofferCommandLine
import Foundation

struct SetCommand: ParsableCommand, ReadsDescriptors {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Store a secret read from stdin (never from the command line).",
        discussion: "The bytes on stdin are stored exactly, newline included: use printf '%s'. On a terminal, the secret is read without echo.")

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector

    @Option(help: "A human-readable label.") var label: String?
    @Option(help: "A comment.") var comment: String?
    @Option(name: .customLong("expires-in"), help: ArgumentHelp("Expire the item after this many seconds (1 to 10^12).", valueName: "seconds"))
    var expiresIn: Int64?
    @Option(name: .customLong("attribute"), help: ArgumentHelp("A custom attribute (repeatable).", valueName: "name=value"))
    var attributes: [String] = []

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
        let secret = try readSecret()
        try root.store().set(secret, for: item.id, options: options)
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
