import Foundation

/// Runs `systemd-creds encrypt` and `decrypt` (systemd 252's command line), keys through pipes
/// only, each run bounded by the timeout; turns their failures into ``MachineKeyFailure``.
struct SystemdCredsTool {
    static let executable = "systemd-creds"
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
        guard outcome.succeeded, !outcome.outputOverflowed, outcome.output.count > 0 else {
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
        guard outcome.output.count == AEAD.keyLength, !outcome.outputOverflowed else {
            throw .machineKey(.failed(reason: "the credential does not hold a \(AEAD.keyLength)-byte key"))
        }
        return outcome.output
    }

    private func run(_ arguments: [String], input: SecureBytes, outputLimit: Int) throws(CofferError) -> BoundedProcess.Outcome {
        let process = BoundedProcess(executable: Self.executable, arguments: arguments, timeout: timeout, outputLimit: outputLimit)
        do throws(BoundedProcess.Failure) {
            return try process.run(input: input)
        } catch {
            switch error {
            case .notFound:
                throw .machineKey(.systemdCredsMissing)
            case .timedOut:
                let (seconds, attoseconds) = timeout.components
                throw .machineKey(.timedOut(seconds: Int(seconds) + (attoseconds > 0 ? 1 : 0)))
            case .system(let reason):
                throw .machineKey(.failed(reason: reason))
            }
        }
    }

    /// What a failed run means, from systemd 252's messages on stderr: the name check, an
    /// unreachable TPM, a missing host key; any other failure to decrypt means the credential
    /// was made elsewhere (another host key or TPM) or under other PCR values.
    static func failure(_ outcome: BoundedProcess.Outcome, decrypting: Bool) -> MachineKeyFailure {
        let text = outcome.errorText
        let reason = lastLine(of: text)
        if case .signalled(let signal) = outcome.ending { return .failed(reason: "systemd-creds was killed by signal \(signal)") }
        if text.contains("Embedded credential name") && text.contains("does not match") { return .boundElsewhere }
        if text.contains("TCTI") || text.contains("TPM2 support not available") || text.contains("No TPM2 device") {
            return .tpmUnreachable(reason: reason)
        }
        if text.contains("Failed to determine local credential key") {
            return decrypting && text.contains("No such file or directory") ? .notThisMachine : .failed(reason: reason)
        }
        return decrypting ? .notThisMachine : .failed(reason: reason.isEmpty ? "exit status \(outcome.ending)" : reason)
    }

    /// The last non-empty line of `text`, without control characters, at most 200 characters.
    static func lastLine(of text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).last { !$0.allSatisfy(\.isWhitespace) } ?? ""
        let printable = String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        return String(printable.trimmingCharacters(in: .whitespaces).prefix(200))
    }
}
