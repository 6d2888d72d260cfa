import ArgumentParser
import Coffer
import CofferCommandLine

/// `slots add --add-secret-service`: the slot's key goes into the Secret Service, reached as
/// the store options say.
struct SecretServiceSlotAddition: SlotAddition {
    static let option = "--add-secret-service"

    @Flag(name: .customLong("add-secret-service"), help: "Add a Secret Service slot: the vault then opens with no prompt while your keyring is unlocked.")
    var isRequested = false

    func credential(_ store: StoreOptions) throws -> VaultCredential {
        .secretService(store.secretService)
    }
}
