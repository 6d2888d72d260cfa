import ArgumentParser
import Coffer
import CofferCommandLine

/// `slots add --add-systemd-creds [--with-key KEYS] [--tpm2-device DEVICE] [--tpm2-pcrs PCRS]`.
struct SystemdCredsSlotAddition: SlotAddition {
    static let option = "--add-systemd-creds"

    @Flag(name: .customLong("add-systemd-creds"), help: "Add a systemd-creds slot: the vault then opens on this machine (host key, TPM2) with no person.")
    var isRequested = false
    @OptionGroup var options: SystemdCredsSlotOptions

    func credential(_ store: StoreOptions) throws -> VaultCredential {
        .systemdCredential(try options.options(store))
    }
}
