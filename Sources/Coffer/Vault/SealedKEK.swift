/// A `systemd-creds` slot's key-encryption key, sealed by `systemd-creds encrypt`, with the TPM2
/// device to open it on (docs/vault-format.md, 4.5). Stored in the slot row: the credential in
/// `salt`, and `systemd-creds` (with `;tpm2-device=` and the device, when one was named) in `kdf`.
struct SealedKEK: Sendable {
    /// The credential as `systemd-creds encrypt` wrote it.
    var credential: [UInt8]
    /// The TPM2 device named when the slot was made; `nil` for systemd's default.
    var tpm2Device: String?

    static let kdfName = "systemd-creds"
    private static let devicePrefix = kdfName + ";tpm2-device="

    /// The `kdf` column.
    var kdfColumn: String {
        tpm2Device.map { Self.devicePrefix + $0 } ?? Self.kdfName
    }

    /// The slot's binding as `coffer slots` shows it.
    var binding: SystemdCredentials.Binding {
        let header = CredentialHeader(credential: credential)
        return SystemdCredentials.Binding(keySource: header.keySource, pcrs: header.pcrs, tpm2Device: tpm2Device)
    }

    /// Reads the `kdf` and `salt` columns of a `systemd-creds` slot; `nil` when they break the
    /// format's rules.
    init?(kdf: String?, credential: [UInt8]?) {
        guard let kdf, let credential, (1...SystemdCredsTool.maxCredentialLength).contains(credential.count) else { return nil }
        if kdf == Self.kdfName {
            tpm2Device = nil
        } else if kdf.hasPrefix(Self.devicePrefix) {
            let device = String(kdf.dropFirst(Self.devicePrefix.count))
            guard (try? SystemdCredentials.checkDevice(device)) != nil else { return nil }
            tpm2Device = device
        } else {
            return nil
        }
        self.credential = credential
    }

    init(credential: [UInt8], tpm2Device: String?) {
        self.credential = credential
        self.tpm2Device = tpm2Device
    }
}
