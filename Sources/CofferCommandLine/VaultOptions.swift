import ArgumentParser
import Coffer
import Foundation

/// Where the vault is and how to open it. Accepted before or after the subcommand.
package struct VaultOptions: ParsableArguments {
    @Option(name: .customLong("vault"), help: ArgumentHelp("The vault file (default: $COFFER_VAULT, else the default vault).", valueName: "path"))
    package var path: String?

    @Option(name: .customLong("passphrase-fd"), help: ArgumentHelp("Read the passphrase from this file descriptor.", valueName: "n"))
    package var passphraseFD: Int32?

    @Option(name: .customLong("keyfile"), help: ArgumentHelp("Open the vault with this key file (default: $COFFER_KEYFILE).", valueName: "path"))
    package var keyFile: String?

    package init() {}

    package var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The vault file's URL.
    package func url() throws -> URL {
        if let path = path ?? environment["COFFER_VAULT"], !path.isEmpty { return URL(fileURLWithPath: path) }
        return try Vault.defaultURL()
    }

    /// The key file, if one was named.
    package var keyFileURL: URL? {
        (keyFile ?? environment["COFFER_KEYFILE"]).flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
    }

    // Opening and unlocking: CofferRoot.openVault() and unlock(_:) (StoreOpening.swift),
    // which also honour --unlock and the Secret Service slot.
}
