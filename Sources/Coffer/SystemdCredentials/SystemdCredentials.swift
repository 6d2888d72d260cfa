/// Keys bound to this machine through `systemd-creds` (systemd 250 and later): its host key, a
/// TPM2 chip, or both, optionally bound to TPM2 PCR values.
///
/// A `systemd-creds` key slot keeps its key-encryption key encrypted by `systemd-creds encrypt`
/// under the name `coffer-<vault id>-<slot id>`; unlocking runs `systemd-creds decrypt` with
/// the same name. Add one with ``Vault/addKeySlot(_:cost:)`` and
/// ``VaultCredential/systemdCredential(_:)``; a service started by systemd can also read a key
/// file's bytes from its credentials folder (``VaultCredential/serviceCredential(name:)``).
public enum SystemdCredentials {
    /// How long one `systemd-creds` run may take before Coffer kills it: 10 seconds.
    /// `systemd-creds` itself waits forever on a TPM that stopped answering.
    public static let defaultTimeout: Duration = .seconds(10)

    /// The service credential's name when none is given: `coffer-vault-key`.
    public static let defaultServiceCredentialName = "coffer-vault-key"

    /// Which keys `systemd-creds encrypt` uses (its `--with-key`).
    public enum WithKey: String, Sendable, Hashable, CaseIterable {
        /// The host key, `/var/lib/systemd/credential.secret` (root only on systemd 252).
        case host
        /// A key sealed by the TPM2 chip.
        case tpm2
        /// Both: the credential opens only on this host with this TPM.
        case hostAndTPM2 = "host+tpm2"
        /// systemd's choice: host and TPM2 when the machine has a TPM2, else the host key.
        case auto
    }

    /// What a slot's credential is bound to, as read from the credential's clear header.
    public enum KeySource: Sendable, Hashable, CustomStringConvertible {
        /// The host key alone.
        case host
        /// The TPM2 alone.
        case tpm2
        /// Both the host key and the TPM2.
        case hostAndTPM2
        /// A kind of credential this version of Coffer does not name.
        case unknown

        public var description: String {
            switch self {
            case .host: "host"
            case .tpm2: "tpm2"
            case .hostAndTPM2: "host+tpm2"
            case .unknown: "unknown"
            }
        }
    }

    /// How a `systemd-creds` slot is made and opened.
    ///
    /// `withKey` and `tpm2PCRs` apply when a slot is made. `tpm2Device`, when given, is stored
    /// in a new slot, and when opening it takes the place of the device stored in the slot.
    /// `timeout` bounds every run of `systemd-creds`.
    public struct Options: Sendable, Hashable {
        public var withKey: WithKey
        /// A TPM2 device or TCTI (`/dev/tpmrm0`, `swtpm:host=127.0.0.1,port=2321`); `nil` for
        /// systemd's default.
        public var tpm2Device: String?
        /// The PCRs the TPM2 key is bound to (0–23); `nil` for systemd's default (PCR 7 on
        /// systemd 252). Never empty: systemd 252 writes a credential it cannot decrypt then.
        public var tpm2PCRs: [Int]?
        public var timeout: Duration

        /// Options with systemd's defaults and a 10-second limit on each run.
        ///
        /// - Parameters:
        ///   - withKey: which keys encrypt a new slot's key (default: systemd's `auto`).
        ///   - tpm2Device: the TPM2 device, or `nil` for systemd's default.
        ///   - tpm2PCRs: the PCRs to bind to, or `nil` for systemd's default.
        ///   - timeout: the most time one `systemd-creds` run may take.
        public init(withKey: WithKey = .auto, tpm2Device: String? = nil, tpm2PCRs: [Int]? = nil, timeout: Duration = SystemdCredentials.defaultTimeout) {
            self.withKey = withKey
            self.tpm2Device = tpm2Device
            self.tpm2PCRs = tpm2PCRs
            self.timeout = timeout
        }

        /// Refuses options `systemd-creds` would misuse: an empty PCR list, a PCR out of range,
        /// a TPM2 option with the host key alone, a device with control characters, a timeout
        /// that is not positive.
        func validate() throws(CofferError) {
            guard timeout > .zero else { throw .invalidArgument(reason: "the systemd-creds timeout must be positive") }
            if let tpm2PCRs {
                guard !tpm2PCRs.isEmpty else {
                    throw .invalidArgument(reason: "name at least one PCR, or none for systemd's default (an empty list makes a credential systemd 252 cannot decrypt)")
                }
                guard tpm2PCRs.allSatisfy((0...23).contains) else { throw .invalidArgument(reason: "PCRs are numbered 0 to 23") }
            }
            if withKey == .host, tpm2PCRs != nil || tpm2Device != nil {
                throw .invalidArgument(reason: "a TPM2 device or PCRs need a TPM2 key (with-key tpm2, host+tpm2 or auto)")
            }
            if let tpm2Device { try SystemdCredentials.checkDevice(tpm2Device) }
        }
    }

    /// Where and how a `systemd-creds` slot's credential is bound, as `coffer slots` shows it.
    public struct Binding: Sendable, Hashable, CustomStringConvertible {
        /// The keys that encrypted the credential.
        public let keySource: KeySource
        /// The TPM2 PCRs the credential is bound to; empty for the host key alone.
        public let pcrs: [Int]
        /// The TPM2 device stored in the slot; `nil` for systemd's default.
        public let tpm2Device: String?

        public var description: String {
            var text = "key \(keySource)"
            if !pcrs.isEmpty { text += ", PCRs \(pcrs.map(String.init).joined(separator: "+"))" }
            if let tpm2Device { text += ", device \(tpm2Device)" }
            return text
        }
    }

    /// The name bound into a slot's credential: `coffer-<vault id>-<slot id>`.
    static func credentialName(vaultID: [UInt8], slot: Int64) -> String {
        "coffer-\(VaultFormat.hexIdentifier(vaultID))-\(slot)"
    }

    /// The longest TPM2 device a slot stores, in bytes.
    static let maxDeviceLength = 1024

    /// A device name is text for a command-line option: 1 to 1024 bytes, no control characters.
    static func checkDevice(_ device: String) throws(CofferError) {
        guard !device.isEmpty, device.utf8.count <= maxDeviceLength,
              !device.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalidArgument(reason: "a TPM2 device is 1 to \(maxDeviceLength) bytes of text without control characters") }
    }
}
