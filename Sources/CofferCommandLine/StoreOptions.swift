import ArgumentParser
import Coffer
import Foundation

/// Which store the item commands use, how the vault is unlocked, and how long the Secret
/// Service may take. Accepted before or after the subcommand.
package struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Where get, set, delete and list find items: vault or secret-service (default: $COFFER_BACKEND, else vault).", valueName: "backend"))
    package var backend: Backend?

    @Option(name: .customLong("unlock"), help: ArgumentHelp(
        "How to unlock the vault: secret-service, keyfile and passphrase, comma-separated, tried in that order (default: $COFFER_UNLOCK, else see below).",
        valueName: "methods"))
    package var unlock: String?

    @Flag(name: .customLong("no-agent"), help: "Do not use the agent, even when it holds the vault unlocked.")
    package var noAgent = false

    @Option(name: .customLong("secret-service-timeout"), help: ArgumentHelp(
        "The most seconds any one Secret Service operation may take (default: 5).", valueName: "seconds"))
    package var secretServiceTimeout: Double?

    package init() {}

    package enum Backend: String, ExpressibleByArgument, CaseIterable {
        case vault
        case secretService = "secret-service"
    }

    /// The ways to unlock a vault that `--unlock` names.
    package enum UnlockMethod: String, CaseIterable {
        case secretService = "secret-service"
        case keyfile
        case passphrase
    }

    package var environment: [String: String] { ProcessInfo.processInfo.environment }

    package func validate() throws {
        if let secretServiceTimeout, !(secretServiceTimeout > 0 && secretServiceTimeout <= 3600) {
            throw ValidationError("--secret-service-timeout takes a number of seconds from 0 to 3600")
        }
    }

    /// The store the item commands use.
    package func selectedBackend() throws -> Backend {
        if let backend { return backend }
        guard let name = environment["COFFER_BACKEND"], !name.isEmpty else { return .vault }
        guard let backend = Backend(rawValue: name) else {
            throw CLIError.usage("$COFFER_BACKEND must be vault or secret-service")
        }
        return backend
    }

    package var secretService: SecretService.Configuration {
        SecretService.Configuration(timeout: secretServiceTimeout.map { .milliseconds(Int($0 * 1000)) } ?? SecretService.defaultTimeout)
    }

    /// The unlock methods named by --unlock or $COFFER_UNLOCK, or `nil` when neither is given.
    package func namedUnlockMethods() throws -> [UnlockMethod]? {
        guard let list = unlock ?? environment["COFFER_UNLOCK"], !list.isEmpty else { return nil }
        return try list.split(separator: ",").map { name in
            guard let method = UnlockMethod(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw CLIError.usage("--unlock takes secret-service, keyfile and passphrase, comma-separated")
            }
            return method
        }
    }
}
