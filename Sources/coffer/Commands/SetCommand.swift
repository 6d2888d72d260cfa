import ArgumentParser
import Coffer
import Foundation

struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Store a secret read from stdin (never from the command line).",
        discussion: "The bytes on stdin are stored exactly, newline included: use printf '%s'. On a terminal, the secret is read without echo.")

    @ParentCommand var root: CofferCommand
    @OptionGroup var item: ItemSelector

    @Option(help: "A human-readable label.") var label: String?
    @Option(help: "A comment.") var comment: String?
    @Option(name: .customLong("expires-in"), help: ArgumentHelp("Expire the item after this many seconds.", valueName: "seconds"))
    var expiresIn: Int?
    @Option(name: .customLong("attribute"), help: ArgumentHelp("A custom attribute (repeatable).", valueName: "name=value"))
    var attributes: [String] = []

    func run() throws {
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
            guard let text = Terminal.readHidden(prompt: "Secret: ") else { throw CLIError.usage("cannot read the terminal") }
            return Data(text.utf8)
        }
        guard let data = try Terminal.readAll(fd: 0, limit: Limits.maxSecretBytes) else {
            throw CofferError.secretTooLarge(size: Limits.maxSecretBytes + 1, limit: Limits.maxSecretBytes)
        }
        return data
    }
}
