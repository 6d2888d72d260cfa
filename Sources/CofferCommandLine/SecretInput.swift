import Coffer
import FoundationEssentials

/// Secrets for the auth commands: from a file descriptor, else a no-echo prompt on a
/// terminal, else stdin. Never from the command line.
package enum SecretInput {
    /// Reads a secret from stdin, or from a no-echo prompt when stdin is a terminal.
    package static func fromStdin(prompt: String, what: String) throws -> String {
        guard Terminal.stdinIsTerminal else { return try DescriptorInput.text(0, what: what) }
        guard let secret = Terminal.readHidden(prompt: prompt) else { throw CLIError.usage("cannot read the \(what) from the terminal") }
        guard secret.count > 0 else { throw CLIError.usage("the \(what) is empty") }
        guard let text = secret.utf8Text else { throw CLIError.usage("the \(what) is not valid UTF-8") }
        return text
    }
}
