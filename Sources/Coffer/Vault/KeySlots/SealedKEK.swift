/// A `systemd-creds` slot's key-encryption key, sealed by `systemd-creds encrypt`, with the TPM2
/// device to open it on (docs/vault-format.md, 4.5). Stored in the slot's parameters: the
/// credential in `salt`, and `systemd-creds` (with `;tpm2-device=` and the device, when one was
/// named) in `kdf`.
struct SealedKEK: Sendable {
    /// The credential as `systemd-creds encrypt` wrote it.
    var credential: [UInt8]
    /// The TPM2 device named when the slot was made; `nil` for systemd's default.
    var tpm2Device: String?

    static let kdfName = "systemd-creds"
    private static let devicePrefix = kdfName + ";tpm2-device="

    /// The slot's parameters: `kdf` and `salt`.
    var parameters: SlotParameters {
        SlotParameters(kdf: tpm2Device.map { Self.devicePrefix + $0 } ?? Self.kdfName, salt: credential)
    }

    /// The slot's binding as `coffer slots` shows it.
    var binding: SystemdCredentials.Binding {
        let header = CredentialHeader(credential: credential)
        return SystemdCredentials.Binding(keySource: header.keySource, pcrs: header.pcrs, tpm2Device: tpm2Device)
    }

    /// Reads the `kdf` and `salt` of a `systemd-creds` slot's parameters; `nil` when they break
    /// the format's rules.
    init?(_ parameters: SlotParameters) {
        guard let kdf = parameters.kdf, let credential = parameters.salt,
              (1...SystemdCredsTool.maxCredentialLength).contains(credential.count)
        else { return nil }
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
