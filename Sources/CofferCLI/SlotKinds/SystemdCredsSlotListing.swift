import Coffer
import CofferBase
import CofferCommandLine

/// A systemd-creds slot shows its binding: `systemdCreds` in JSON (the keys: host, tpm2,
/// host+tpm2 or unknown; the PCRs; the TPM2 device stored in the slot, absent for systemd's
/// default), `key=tpm2 pcrs=7 device=/dev/tpmrm0` in text.
enum SystemdCredsSlotListing: SlotKindListing {
    struct SystemdCreds: Encodable {
        let keySource: String
        let pcrs: [Int]
        let tpm2Device: String?
    }

    static func details(of slot: KeySlot) -> SlotDetails? {
        guard case .systemdCredential(let binding) = slot.kind else { return nil }
        let text = "key=\(binding.keySource)" + (binding.pcrs.isEmpty ? "" : " pcrs=\(binding.pcrs.map(String.init).joined(separator: "+"))")
            + (binding.tpm2Device.map { " device=\(TerminalText.escaped($0))" } ?? "")
        return SlotDetails(
            member: "systemdCreds",
            value: SystemdCreds(keySource: binding.keySource.description, pcrs: binding.pcrs, tpm2Device: binding.tpm2Device),
            text: text)
    }
}
