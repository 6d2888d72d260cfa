import ArgumentParser
import Coffer
import Foundation

/// Which store the item commands use, how the vault is unlocked, and how long the Secret
/// Service may take. Accepted before or after the subcommand; each also comes from an
/// environment variable, which is how they reach a forwarded command.
package struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Where get, set, delete and list find items: vault or secret-service (default: $COFFER_BACKEND, else vault).", valueName: "backend"))
    package var backend: Backend?

    @Option(name: .customLong("unlock"), help: ArgumentHelp(
        "How to unlock the vault: secret-service, keyfile and passphrase, comma-separated, tried in that order (default: $COFFER_UNLOCK, else see below).",
        valueName: "methods"))
    package var unlock: String?

    @Flag(name: .customLong("no-agent"), help: "Do not use the agent, even when it holds the vault unlocked (default: $COFFER_NO_AGENT=1).")
    var noAgentFlag = false

    @Option(name: .customLong("secret-service-timeout"), help: ArgumentHelp(
        "The most seconds any one Secret Service operation may take (default: $COFFER_SECRET_SERVICE_TIMEOUT, else 5).", valueName: "seconds"))
    var secretServiceTimeoutOption: Double?

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
        if let secretServiceTimeout = secretServiceTimeoutOption ?? environment["COFFER_SECRET_SERVICE_TIMEOUT"].map({ Double($0) ?? .nan }),
           !(secretServiceTimeout > 0 && secretServiceTimeout <= 3600) {
            throw ValidationError("--secret-service-timeout ($COFFER_SECRET_SERVICE_TIMEOUT) takes a number of seconds from 0 to 3600")
        }
    }

    /// Whether the agent is skipped: --no-agent, or $COFFER_NO_AGENT=1.
    package var noAgent: Bool { noAgentFlag || environment["COFFER_NO_AGENT"] == "1" }

    /// --secret-service-timeout, else $COFFER_SECRET_SERVICE_TIMEOUT (checked by `validate()`).
    var secretServiceTimeout: Double? {
        secretServiceTimeoutOption ?? environment["COFFER_SECRET_SERVICE_TIMEOUT"].flatMap(Double.init)
    }

    /// The options given on the command line, as the environment variables that carry them.
    package var forwardedEnvironment: [String: String] {
        var variables: [String: String] = [:]
        variables["COFFER_BACKEND"] = backend?.rawValue
        variables["COFFER_UNLOCK"] = unlock
        variables["COFFER_NO_AGENT"] = noAgentFlag ? "1" : nil
        variables["COFFER_SECRET_SERVICE_TIMEOUT"] = secretServiceTimeoutOption.map { String($0) }
        return variables
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
