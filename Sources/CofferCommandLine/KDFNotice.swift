import Coffer

/// Says on stderr when an explicit `--kdf` made a passphrase slot cheaper to guess than the
/// vault's passphrase slots were: the only way a command lowers the Argon2id cost.
package enum KDFNotice {
    package static func reportIfLowered(to cost: PassphraseCost, from before: [KeySlot]) {
        let strongest = before.compactMap { slot -> PassphraseCost? in
            if case .passphrase(let cost) = slot.kind { cost } else { nil }
        }.max { $0.work < $1.work }
        guard let strongest, cost.work < strongest.work else { return }
        Terminal.printError("note: --kdf gives this passphrase a lower Argon2id cost (\(cost)) than the vault's strongest passphrase slot (\(strongest))")
    }
}
