import Foundation

/// Secrets for the auth commands: from a file descriptor, else a no-echo prompt on a
/// terminal, else stdin. Never from the command line.
enum SecretInput {
    /// Reads a secret from stdin, or from a no-echo prompt when stdin is a terminal.
    static func fromStdin(prompt: String, what: String) throws -> String {
        if Terminal.stdinIsTerminal {
            guard let text = Terminal.readHidden(prompt: prompt) else { throw CLIError.usage("cannot read the \(what) from the terminal") }
            return text
        }
        return try fromDescriptor(0, what: what)
    }

    /// Reads a secret from file descriptor `fd`; one trailing newline is dropped.
    static func fromDescriptor(_ fd: Int32, what: String) throws -> String {
        let secret = try Passphrase.read(fd: fd, environmentName: "", prompt: "")
        guard !secret.isEmpty else { throw CLIError.usage("the \(what) is empty") }
        return secret
    }
}
