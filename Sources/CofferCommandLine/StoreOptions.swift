import ArgumentParser
import Coffer
import CofferBase
import FoundationEssentials

/// Which store the item commands use, how the vault is unlocked, and how long the Secret
/// Service may take. Accepted before or after the subcommand; each also comes from an
/// environment variable, which is how they reach a forwarded command.
package struct StoreOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Where get, set, delete and list find items: vault or secret-service (default: $COFFER_BACKEND, else vault).", valueName: "backend"))
    package var backend: Backend?

    @Option(name: .customLong("unlock"), help: ArgumentHelp(
        "How to unlock the vault: secret-service, systemd-creds, credential, keyfile and passphrase, comma-separated, tried in that order (default: $COFFER_UNLOCK, else see below).",
        valueName: "methods"))
    package var unlock: String?

    @Option(name: .customLong("credential"), help: ArgumentHelp(
        "The service credential in $CREDENTIALS_DIRECTORY that --unlock credential reads (default: $COFFER_CREDENTIAL, else coffer-vault-key).",
        valueName: "name"))
    var credentialNameOption: String?

    @Option(name: .customLong("systemd-creds-timeout"), help: ArgumentHelp(
        "The most seconds one systemd-creds run may take before it is stopped (default: $COFFER_SYSTEMD_CREDS_TIMEOUT, else 10).",
        valueName: "seconds"))
    var systemdCredsTimeoutOption: Double?

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
        case systemdCreds = "systemd-creds"
        case credential
        case keyfile
        case passphrase
    }

    package var environment: [String: String] { ProcessInfo.processInfo.environment }

    package func validate() throws {
        if let secretServiceTimeout = secretServiceTimeoutOption ?? environment["COFFER_SECRET_SERVICE_TIMEOUT"].map({ Double($0) ?? .nan }),
           !(secretServiceTimeout > 0 && secretServiceTimeout <= 3600) {
            throw ValidationError("--secret-service-timeout ($COFFER_SECRET_SERVICE_TIMEOUT) takes a number of seconds from 0 to 3600")
        }
        if let systemdCredsTimeout = systemdCredsTimeoutOption ?? environment["COFFER_SYSTEMD_CREDS_TIMEOUT"].map({ Double($0) ?? .nan }),
           !(systemdCredsTimeout > 0 && systemdCredsTimeout <= 3600) {
            throw ValidationError("--systemd-creds-timeout ($COFFER_SYSTEMD_CREDS_TIMEOUT) takes a number of seconds from 0 to 3600")
        }
    }

    /// The service credential --unlock credential reads: --credential, else $COFFER_CREDENTIAL.
    package var credentialName: String? { credentialNameOption ?? environment["COFFER_CREDENTIAL"].flatMap { $0.isEmpty ? nil : $0 } }

    /// --systemd-creds-timeout, else $COFFER_SYSTEMD_CREDS_TIMEOUT (checked by `validate()`).
    package var systemdCredsTimeout: Double? {
        systemdCredsTimeoutOption ?? environment["COFFER_SYSTEMD_CREDS_TIMEOUT"].flatMap(Double.init)
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
        variables["COFFER_CREDENTIAL"] = credentialNameOption
        variables["COFFER_SYSTEMD_CREDS_TIMEOUT"] = systemdCredsTimeoutOption.map { String($0) }
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

    /// How `systemd-creds` slots are opened: the TPM2 device of $COFFER_TPM2_DEVICE (over the
    /// slot's own) and --systemd-creds-timeout.
    package var systemdCredentials: SystemdCredentials.Options {
        SystemdCredentials.Options(
            tpm2Device: environment["COFFER_TPM2_DEVICE"].flatMap { $0.isEmpty ? nil : $0 },
            timeout: systemdCredsTimeout.map { .milliseconds(Int($0 * 1000)) } ?? SystemdCredentials.defaultTimeout)
    }

    /// The service credential --unlock credential reads.
    package var serviceCredential: VaultCredential {
        .serviceCredential(name: credentialName ?? SystemdCredentials.defaultServiceCredentialName)
    }

    /// Whether a service credential is there to read: $CREDENTIALS_DIRECTORY holds the file that
    /// --credential (or the default name) names.
    package var hasServiceCredential: Bool {
        guard let folder = environment["CREDENTIALS_DIRECTORY"], !folder.isEmpty else { return false }
        let name = credentialName ?? SystemdCredentials.defaultServiceCredentialName
        return FileManager.default.fileExists(atPath: URL(fileURLWithPath: folder).appendingPathComponent(name).path)
    }

    /// The unlock methods named by --unlock or $COFFER_UNLOCK, or `nil` when neither is given.
    package func namedUnlockMethods() throws -> [UnlockMethod]? {
        guard let list = unlock ?? environment["COFFER_UNLOCK"], !list.isEmpty else { return nil }
        return try list.split(separator: ",").map { name in
            guard let method = UnlockMethod(rawValue: String(name.trimmingWhitespace())) else {
                throw CLIError.usage("--unlock takes secret-service, systemd-creds, credential, keyfile and passphrase, comma-separated")
            }
            return method
        }
    }
}
