import ArgumentParser
import Coffer
import FoundationEssentials

/// Where the vault is and how to open it. Accepted before or after the subcommand; each also
/// comes from an environment variable, which is how they reach a forwarded command.
package struct VaultOptions: ParsableArguments {
    @Option(name: .customLong("vault"), help: ArgumentHelp("The vault file (default: $COFFER_VAULT, else the default vault).", valueName: "path"))
    package var path: String?

    @Option(name: .customLong("passphrase-fd"), help: ArgumentHelp("Read the passphrase from this file descriptor (default: $COFFER_PASSPHRASE_FD).", valueName: "n"))
    var passphraseFDOption: Int32?

    @Option(name: .customLong("keyfile"), help: ArgumentHelp("Open the vault with this key file (default: $COFFER_KEYFILE).", valueName: "path"))
    package var keyFile: String?

    package init() {}

    package var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The vault file's URL.
    package func url() throws -> URL {
        if let path = path ?? environment["COFFER_VAULT"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return try Vault.defaultURL()
    }

    /// The descriptor the passphrase is read from: --passphrase-fd, else $COFFER_PASSPHRASE_FD.
    package var passphraseFD: Int32? {
        passphraseFDOption ?? environment["COFFER_PASSPHRASE_FD"].flatMap { Int32($0) }
    }

    /// The options given on the command line, as the environment variables that carry them.
    package var forwardedEnvironment: [String: String] {
        var variables: [String: String] = [:]
        variables["COFFER_VAULT"] = path
        variables["COFFER_KEYFILE"] = keyFile
        variables["COFFER_PASSPHRASE_FD"] = passphraseFDOption.map(String.init)
        return variables
    }

    /// The key file, if one was named.
    package var keyFileURL: URL? {
        (keyFile ?? environment["COFFER_KEYFILE"]).flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
    }

    // Opening and unlocking: CofferRoot.openVault() and unlock(_:) (StoreOpening.swift),
    // which also honour --unlock and the Secret Service slot.
}
