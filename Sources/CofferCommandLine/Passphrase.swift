import Coffer
import FoundationEssentials
import Glibc

/// Where vault passphrases come from: a file descriptor, an environment variable, or a
/// no-echo prompt on the terminal. They stay in guarded memory (``SecureBytes``) from the
/// moment they are read; bytes that are not valid UTF-8 are refused.
package enum Passphrase {
    /// The passphrase from descriptor `fd` (one trailing newline dropped), else the environment
    /// variable `environmentName`, else the terminal (twice with `confirm`; never when `prompt` is `nil`).
    package static func credential(fd: Int32?, environmentName: String, prompt: String?, confirm: Bool = false) throws -> VaultCredential {
        try .passphrase(utf8: try bytes(fd: fd, environmentName: environmentName, prompt: prompt, confirm: confirm))
    }

    /// A new passphrase: --new-passphrase-fd, $COFFER_NEW_PASSPHRASE, or the terminal twice. Not empty.
    package static func newCredential(fd: Int32?) throws -> VaultCredential {
        let passphrase = try bytes(fd: fd, environmentName: "COFFER_NEW_PASSPHRASE", prompt: "New passphrase: ", confirm: true)
        guard passphrase.count > 0 else { throw CLIError.usage("the new passphrase is empty") }
        return try .passphrase(utf8: passphrase)
    }

    /// The passphrase's bytes, from the same sources as ``credential(fd:environmentName:prompt:confirm:)``.
    package static func bytes(fd: Int32?, environmentName: String, prompt: String?, confirm: Bool = false) throws -> SecureBytes {
        if let fd { return try DescriptorInput.secret(fd, what: "passphrase") }
        if let value = getenv(environmentName) {
            return SecureBytes(copying: UnsafeRawBufferPointer(start: value, count: strlen(value)))
        }
        guard let prompt else {
            throw CLIError.noCredential("no passphrase: use --passphrase-fd or $\(environmentName), a key file, or `coffer unlock` with the agent (no prompt here)")
        }
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
}
