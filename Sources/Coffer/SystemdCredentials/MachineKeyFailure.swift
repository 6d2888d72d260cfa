/// Why a key bound to this machine (a `systemd-creds` slot or a service credential) could not
/// be had. Carries no secret: only fixed reasons, names and the last line `systemd-creds` wrote.
public enum MachineKeyFailure: Sendable, Hashable, CustomStringConvertible {
    /// `systemd-creds` is not installed (it comes with systemd 250 and later).
    case systemdCredsMissing
    /// The credential does not open here: another machine's host key, another TPM, or a PCR
    /// that changed since the slot was made.
    case notThisMachine
    /// The credential names another vault or slot (`systemd-creds` checks the name bound into
    /// it), so it was copied from elsewhere.
    case boundElsewhere
    /// The TPM2 device cannot be reached (missing, or refused the connection).
    case tpmUnreachable(reason: String)
    /// `systemd-creds` did not finish within the time limit (a TPM that does not answer);
    /// Coffer killed it.
    case timedOut(seconds: Int)
    /// `systemd-creds` failed for another reason, such as a host key only root may read.
    case failed(reason: String)
    /// No service credential of that name in `$CREDENTIALS_DIRECTORY` (or no such folder:
    /// the process was not started by systemd with `LoadCredential=`).
    case serviceCredentialMissing(name: String)

    public var description: String {
        switch self {
        case .systemdCredsMissing: "systemd-creds is not installed (it comes with systemd 250 or later)"
        case .notThisMachine: "the systemd credential does not open here: another machine's host key, another TPM, or a changed PCR"
        case .boundElsewhere: "the systemd credential belongs to another vault or slot"
        case .tpmUnreachable(let reason): "the TPM2 device cannot be reached: \(reason)"
        case .timedOut(let seconds): "systemd-creds did not finish within \(seconds) s (the TPM does not answer); it was stopped"
        case .failed(let reason): "systemd-creds failed: \(reason)"
        case .serviceCredentialMissing(let name): "no service credential \(name) in $CREDENTIALS_DIRECTORY (is the service started with LoadCredential= or LoadCredentialEncrypted=?)"
        }
    }
}

extension MachineKeyFailure {
    /// Whether another slot of the same kind may still open: true when this one's credential
    /// does not open here or its TPM cannot be reached; false when `systemd-creds` is missing
    /// or ran out of time, which every other slot would meet too.
    var triesNextSlot: Bool {
        switch self {
        case .notThisMachine, .boundElsewhere, .tpmUnreachable, .failed: true
        case .systemdCredsMissing, .timedOut, .serviceCredentialMissing: false
        }
    }
}
