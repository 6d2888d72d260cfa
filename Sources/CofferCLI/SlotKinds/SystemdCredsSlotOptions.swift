import ArgumentParser
import Coffer
import CofferCommandLine

/// How `slots add --add-systemd-creds` and `init --systemd-creds-slot` make a systemd-creds slot.
struct SystemdCredsSlotOptions: ParsableArguments {
    @Option(name: .customLong("with-key"), help: ArgumentHelp(
        "The keys systemd-creds seals the slot's key with: host, tpm2, host+tpm2 or auto (default: auto, systemd's choice).",
        valueName: "keys"))
    var withKey: SystemdCredentials.WithKey = .auto

    @Option(name: .customLong("tpm2-device"), help: ArgumentHelp(
        "The TPM2 device, stored in the slot (default: $COFFER_TPM2_DEVICE, else systemd's).", valueName: "device"))
    var tpm2Device: String?

    @Option(name: .customLong("tpm2-pcrs"), help: ArgumentHelp(
        "The PCRs to bind the TPM2 key to, such as 7 or 0+7 (default: systemd's, PCR 7 on systemd 252).", valueName: "pcrs"))
    var tpm2PCRs: String?

    /// The options for a new slot; `store` gives the timeout, and $COFFER_TPM2_DEVICE the device
    /// when none is named and the slot uses a TPM2 (it is no reason to refuse a host-key slot).
    func options(_ store: StoreOptions) throws -> SystemdCredentials.Options {
        var options = store.systemdCredentials
        options.withKey = withKey
        if withKey == .host { options.tpm2Device = nil }
        if let tpm2Device { options.tpm2Device = tpm2Device }
        if let tpm2PCRs { options.tpm2PCRs = try Self.parsePCRs(tpm2PCRs) }
        return options
    }

    /// `7`, `0+7` or `0,7`: PCR numbers 0 to 23, at least one (never an empty list).
    static func parsePCRs(_ text: String) throws -> [Int] {
        let numbers = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "+" || $0 == "," }).map { Int($0) }
        guard !numbers.isEmpty, numbers.allSatisfy({ $0.map((0...23).contains) ?? false }) else {
            throw ValidationError("--tpm2-pcrs takes PCR numbers 0 to 23 joined by +, such as 7 or 0+7")
        }
        return numbers.compactMap { $0 }
    }
}

extension SystemdCredentials.WithKey: ExpressibleByArgument {}
