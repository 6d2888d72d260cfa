import Coffer
import FoundationEssentials
import Glibc

/// What `coffer doctor` warns about per-application access (docs/security.md, "Per-application
/// access"): an open policy, and slots that every program of the user can open.
enum AccessWarnings {
    /// The warnings for a vault with `policy` (`nil`: not known) and `slots`; `keyFile` is the
    /// key file named on the command line, if any.
    static func warnings(policy: AccessPolicy?, slots: [KeySlot], keyFile: URL?) -> [String] {
        var warnings: [String] = []
        if policy == .open {
            warnings.append(
                "the access policy is open: every program of yours reads every item. An existing vault stays open "
                    + "until its user changes it: coffer access policy confirm")
        }
        for slot in slots {
            switch slot.kind {
            case .keyFile:
                guard let keyFile else {
                    warnings.append(
                        "slot \(slot.id) opens with a key file: if every program of yours can read it, per-application access "
                            + "cannot hold (docs/security.md); name it with --keyfile to check")
                    continue
                }
                if access(keyFile.path, R_OK) == 0 {
                    warnings.append(
                        "slot \(slot.id) opens with a key file, and \(keyFile.path) is readable by every program of yours: "
                            + "per-application access cannot hold (docs/security.md)")
                }
            case .secretService:
                warnings.append(
                    "slot \(slot.id) keeps the vault key in the Secret Service, where every program of yours can read it: "
                        + "per-application access cannot hold (docs/security.md)")
            default:
                continue
            }
        }
        return warnings
    }
}
