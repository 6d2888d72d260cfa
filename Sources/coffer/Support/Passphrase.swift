import Coffer
import Foundation

/// Where passphrases come from: a file descriptor, an environment variable, or the terminal.
enum Passphrase {
    /// Reads a passphrase. A trailing newline from a file descriptor is dropped.
    static func read(fd: Int32?, environmentName: String, prompt: String, confirm: Bool = false) throws -> String {
        if let fd {
            guard let data = try Terminal.readAll(fd: fd, limit: 65536) else {
                throw CLIError.usage("the passphrase on file descriptor \(fd) is too long")
            }
            var text = String(decoding: data, as: UTF8.self)
            if text.hasSuffix("\n") { text.removeLast() }
            return text
        }
        if let value = ProcessInfo.processInfo.environment[environmentName] { return value }
        guard let first = Terminal.readHidden(prompt: prompt) else {
            throw CLIError.noCredential("no passphrase: use --passphrase-fd, $\(environmentName) or a terminal")
        }
        if confirm {
            guard Terminal.readHidden(prompt: "Repeat: ") == first else {
                throw CLIError.usage("the passphrases do not match")
            }
        }
        return first
    }

    /// Reads a new passphrase: --new-passphrase-fd, $COFFER_NEW_PASSPHRASE, or the terminal twice.
    static func readNew(fd: Int32?) throws -> String {
        let passphrase = try read(fd: fd, environmentName: "COFFER_NEW_PASSPHRASE", prompt: "New passphrase: ", confirm: true)
        guard !passphrase.isEmpty else { throw CLIError.usage("the new passphrase is empty") }
        return passphrase
    }
}
