import CofferBase
import FoundationEssentials

/// Every error Coffer's store throws.
///
/// Cases carry only non-secret context: paths, sizes, version numbers and fixed reasons.
/// No case ever holds a secret, a passphrase, or an item's service, account or label.
public enum CofferError: Error, Sendable, Hashable {
    /// The item does not exist. Only thrown after a read that succeeded and found nothing.
    case itemNotFound
    /// The store is locked: unlock it first. A locked store never reads as empty.
    case locked
    /// The storage could not be reached or used (I/O error, disk full, busy beyond the timeout).
    case storageUnavailable(reason: String)
    /// The passphrase does not open any passphrase slot of the vault.
    case wrongPassphrase
    /// The key or key file does not open any slot of the vault.
    case wrongKey
    /// An item's record failed authentication: it was modified, moved or copied from elsewhere.
    /// Other items are unaffected.
    case integrityFailure
    /// The vault file is damaged or is not a Coffer vault.
    case corruptVault(reason: String)
    /// The file or its folder can be read or changed by other users; Coffer refuses to use it.
    case insecurePermissions(path: String, reason: String)
    /// The vault was written by a newer Coffer format than this version reads.
    case unsupportedFormatVersion(Int)
    /// The secret is larger than ``Limits/maxSecretBytes``.
    case secretTooLarge(size: Int, limit: Int)
    /// An argument was out of range or malformed.
    case invalidArgument(reason: String)
    /// The secret is not valid UTF-8, so it cannot be returned as a `String`. Read it as `Data`.
    case notUTF8
    /// There is no vault at the path.
    case vaultNotFound(path: String)
    /// A vault already exists at the path.
    case vaultExists(path: String)
    /// The Secret Service cannot be used: there is no session bus, no daemon on it, or the daemon
    /// failed. Never means "not found". A locked collection is ``locked`` instead.
    case secretServiceUnavailable(reason: String)
    /// The Secret Service did not answer within the configured timeout.
    case timeout
    /// A key bound to this machine could not be had: `systemd-creds` is missing or failed,
    /// the credential is another machine's, TPM's or slot's, the TPM does not answer, or a
    /// service credential is missing. Another credential may still open the vault.
    case machineKey(MachineKeyFailure)
    /// The vault's access policy keeps `program` (an executable's path) from the item: the
    /// person said no, nobody could be asked, or the policy is strict. `coffer access grant`
    /// adds a program to an item's access list (docs/security.md, "Per-application access").
    case accessDenied(program: String)
    /// No Coffer agent answers at the socket the login keychain uses (``Keychain/init(service:)``):
    /// none runs, it died, or it is stuck. `reason` says which, and how to start one. Nothing
    /// was opened in this process instead.
    case agentUnavailable(reason: String)
}

extension CofferError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .itemNotFound: "item not found"
        case .locked: "the store is locked"
        case .storageUnavailable(let reason): "storage unavailable: \(reason)"
        case .wrongPassphrase: "wrong passphrase"
        case .wrongKey: "the key does not open this vault"
        case .integrityFailure: "integrity failure: the item's record was modified, moved or copied"
        case .corruptVault(let reason): "corrupt vault: \(reason)"
        case .insecurePermissions(let path, let reason): "insecure permissions on \(path): \(reason)"
        case .unsupportedFormatVersion(let version): "unsupported vault format version \(version)"
        case .secretTooLarge(let size, let limit): "secret too large: \(size) bytes (limit \(limit))"
        case .invalidArgument(let reason): "invalid argument: \(reason)"
        case .notUTF8: "the secret is not UTF-8 text"
        case .vaultNotFound(let path): "no vault at \(path)"
        case .vaultExists(let path): "a vault already exists at \(path)"
        case .secretServiceUnavailable(let reason): "Secret Service unavailable: \(reason)"
        case .timeout: "the Secret Service did not answer in time"
        case .machineKey(let failure): failure.description
        case .accessDenied(let program):
            "access denied to \(TerminalText.escaped(program)): the vault's access policy keeps it from this item; "
                + "`coffer access grant SERVICE ACCOUNT PROGRAM` allows it (docs/access.md)"
        case .agentUnavailable(let reason): "the Coffer agent is unavailable: \(reason)"
        }
    }
}

extension CofferError: LocalizedError {
    public var errorDescription: String? { description }
}
