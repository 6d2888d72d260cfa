import Coffer
import CofferCommandLine
import FoundationEssentials

extension AgentCredential {
    /// The credential `coffer unlock` and `coffer agent share` hand the agent, read as every
    /// command reads one: the key file (`--keyfile`, `$COFFER_KEYFILE`), else the passphrase
    /// (`--passphrase-fd`, `$COFFER_PASSPHRASE`, or the terminal). A passphrase that is not
    /// UTF-8 is refused before it travels.
    static func read(from options: VaultOptions) throws -> AgentCredential {
        if let keyFile = options.keyFileURL { return .keyFile(try VaultPaths.real(keyFile)) }
        let bytes = try Passphrase.bytes(fd: options.passphraseFD, environmentName: "COFFER_PASSPHRASE", prompt: "Passphrase: ")
        _ = try VaultCredential.passphrase(utf8: bytes)
        return .passphrase(bytes)
    }
}
