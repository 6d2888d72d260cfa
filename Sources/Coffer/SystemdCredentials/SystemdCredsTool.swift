import CofferProcess
import FoundationEssentials
import Glibc

/// Runs `systemd-creds encrypt` and `decrypt` (systemd 252's command line), keys through its
/// standard streams only, each run bounded by the timeout; turns their failures into
/// ``MachineKeyFailure``.
///
/// It runs the system's own `systemd-creds` (never one found through `$PATH`), in a process
/// group of its own that the timeout kills whole, with descriptors 0, 1 and 2 only and an
/// environment of `PATH` (fixed) and the `SYSTEMD_*` variables (such as
/// `SYSTEMD_CREDENTIAL_SECRET`).
struct SystemdCredsTool {
    /// Where systemd installs it.
    static let systemPaths = ["/usr/bin/systemd-creds", "/bin/systemd-creds"]
    /// For tests only: an absolute path that stands in for ``systemPaths`` (a wrapper that
    /// records what it gets, or a path where there is nothing). Not a secret.
    static let standInVariable = "COFFER_TEST_SYSTEMD_CREDS"
    /// The most bytes a credential may hold: far more than one for a 32-byte key needs.
    static let maxCredentialLength = 65536

    let timeout: Duration

    /// Encrypts `key` under `name` with the keys and PCRs of `options`; returns the credential
    /// as `systemd-creds` wrote it (Base64 text).
    func encrypt(_ key: SecureBytes, name: String, options: SystemdCredentials.Options) throws(CofferError) -> [UInt8] {
        var arguments = ["encrypt", "--name=\(name)", "--with-key=\(options.withKey.rawValue)"]
        if let device = options.tpm2Device { arguments.append("--tpm2-device=\(device)") }
        // Only a non-empty list is ever passed: `--tpm2-pcrs=` (empty) makes systemd 252 write
        // a credential it cannot decrypt.
        if let pcrs = options.tpm2PCRs, !pcrs.isEmpty { arguments.append("--tpm2-pcrs=\(pcrs.map(String.init).joined(separator: "+"))") }
        let outcome = try run(arguments + ["-", "-"], input: key, outputLimit: Self.maxCredentialLength)
        guard outcome.succeeded, !outcome.run.outputOverflowed, outcome.output.count > 0 else {
            throw .machineKey(Self.failure(outcome, decrypting: false))
        }
        return outcome.output.withUnsafeBytes { Array($0) }
    }

    /// Decrypts `credential`, checking that it carries `name`; the result must be a 32-byte key.
    func decrypt(_ credential: [UInt8], name: String, tpm2Device: String?) throws(CofferError) -> SecureBytes {
        var arguments = ["decrypt", "--name=\(name)", "--newline=no"]
        if let tpm2Device { arguments.append("--tpm2-device=\(tpm2Device)") }
        let outcome = try run(arguments + ["-", "-"], input: SecureBytes(copying: credential), outputLimit: AEAD.keyLength)
        guard outcome.succeeded else { throw .machineKey(Self.failure(outcome, decrypting: true)) }
        guard outcome.output.count == AEAD.keyLength, !outcome.run.outputOverflowed else {
            throw .machineKey(.failed(reason: "the credential does not hold a \(AEAD.keyLength)-byte key"))
        }
        return outcome.output
    }

    /// What a finished run left: its outcome, and its standard output in guarded memory.
    struct Outcome {
        let run: ChildRunOutcome
        let output: SecureBytes

        var succeeded: Bool { run.succeeded }
    }

    /// The program to run: the stand-in when ``standInVariable`` names one, else the first of
    /// ``systemPaths`` that is an executable file; `nil` when there is none.
    static func locate() -> String? {
        let candidates = getenv(standInVariable).map { [String(cString: $0)] } ?? systemPaths
        return candidates.first { path in
            var info = stat()
            return path.hasPrefix("/") && stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
        }
    }

    private func run(_ arguments: [String], input: SecureBytes, outputLimit: Int) throws(CofferError) -> Outcome {
        guard let executable = Self.locate() else { throw .machineKey(.systemdCredsMissing) }
        let command = ChildCommand(executable: executable, arguments: arguments, environment: ChildEnvironment.passing([], prefixes: ["SYSTEMD_"]))
        let deadline = ContinuousClock.now + timeout
        var ran: Result<ChildRunOutcome, ChildRunFailure> = .failure(.timedOut)
        let captured = SecureBytes(count: outputLimit) { buffer in
            ran = input.withUnsafeBytes { bytes in
                Result { () throws(ChildRunFailure) in try command.run(input: .bytes(bytes), output: buffer, until: deadline) }
            }
        }
        switch ran {
        case .success(let outcome):
            let output = captured.withUnsafeBytes { SecureBytes(copying: $0.prefix(outcome.outputCount)) }
            return Outcome(run: outcome, output: output)
        case .failure(.timedOut), .failure(.cancelled):
            let (seconds, attoseconds) = timeout.components
            throw .machineKey(.timedOut(seconds: Int(seconds) + (attoseconds > 0 ? 1 : 0)))
        case .failure(.spawn(.cannotRun(_, errno: ENOENT))):
            throw .machineKey(.systemdCredsMissing)
        case .failure(.spawn(let failure)):
            throw .machineKey(.failed(reason: "\(failure)"))
        }
    }

    /// What a failed run means, from systemd 252's messages on stderr: the name check, an
    /// unreachable TPM, a missing host key; any other failure to decrypt means the credential
    /// was made elsewhere (another host key or TPM) or under other PCR values.
    static func failure(_ outcome: Outcome, decrypting: Bool) -> MachineKeyFailure {
        let text = outcome.run.errorText
        let reason = lastLine(of: text)
        if case .signalled(let signal) = outcome.run.termination { return .failed(reason: "systemd-creds was killed by signal \(signal)") }
        if text.contains("Embedded credential name") && text.contains("does not match") { return .boundElsewhere }
        if text.contains("TCTI") || text.contains("TPM2 support not available") || text.contains("No TPM2 device") {
            return .tpmUnreachable(reason: reason)
        }
        if text.contains("Failed to determine local credential key") {
            return decrypting && text.contains("No such file or directory") ? .notThisMachine : .failed(reason: reason)
        }
        return decrypting ? .notThisMachine : .failed(reason: reason.isEmpty ? "\(outcome.run.termination)" : reason)
    }

    /// The last non-empty line of `text`, without control characters, at most 200 characters.
    static func lastLine(of text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).last { !$0.allSatisfy(\.isWhitespace) } ?? ""
        let printable = String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        return String(printable.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed().prefix(200))
    }
}
