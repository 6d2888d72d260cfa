import Coffer
import Foundation

/// Created collections and aliases as earlier versions recorded them: ordinary items of the
/// login collection, which any client could write, forge or replace (service
/// `coffer:collection`, account the collection's name, attribute `coffer:vault` a path, the key
/// as the secret; service `coffer:alias`, the collection's name as the secret).
///
/// They are taken over into ``ProviderRecords`` once, the first time the login vault is seen
/// unlocked with any of them in it (the record `migrated` then says it was done, and they are
/// never looked at again), trusting nothing in them but a key that opens a vault already where
/// the name says:
/// a record is taken over only when its name is a collection's, its path is that name's vault
/// in the provider's folder (``ProviderFolder``: a regular file, no link, a Coffer vault), and
/// its key opens that vault. The new record is written before the old item is removed, so a
/// crash loses nothing. Any other old item is left as it is: an ordinary item that nothing
/// reads any more.
enum LegacyCollectionRecords {
    static let keyService = "coffer:collection"
    static let aliasService = "coffer:alias"
    static let vaultAttribute = "coffer:vault"

    /// Takes the old records over, unless that was done before; a failure leaves it for the
    /// next time.
    static func takeOver(in login: Vault, folder: ProviderFolder) {
        do throws(CofferError) {
            guard try !ProviderRecords.isMigrated(login) else { return }
            let keys = try login.items(matching: ItemQuery(itemClass: .genericPassword, service: keyService))
            let aliases = try login.items(matching: ItemQuery(itemClass: .genericPassword, service: aliasService))
            guard !keys.isEmpty || !aliases.isEmpty else { return }
            var names = Set(try ProviderRecords.collections(in: login).map(\.name))
            for item in keys {
                let name = item.id.account
                guard !names.contains(name), let taken = try takeOver(item, folder: folder, login: login) else { continue }
                try ProviderRecords.addCollection(taken.record, key: taken.key, to: login)
                _ = try login.remove(item.id)
                names.insert(name)
            }
            for item in aliases {
                guard ObjectPaths.isElement(item.id.account), item.id.account != "default",
                      let target = try login.secret(for: item.id).flatMap({ String(data: $0, encoding: .utf8) }),
                      names.contains(target) || target == CollectionRegistry.loginName
                else { continue }
                try ProviderRecords.setAlias(item.id.account, to: target, in: login)
                _ = try login.remove(item.id)
            }
            try ProviderRecords.markMigrated(login)
        } catch {
            return
        }
    }

    /// The record `item` becomes, with its key, when it passes every check; `nil` otherwise.
    private static func takeOver(_ item: ItemAttributes, folder: ProviderFolder, login: Vault) throws(CofferError) -> (record: ProviderRecords.CreatedCollection, key: SecureBytes)? {
        let name = item.id.account
        let path = folder.vaultPath(of: name)
        guard ObjectPaths.isElement(name), name != CollectionRegistry.loginName,
              let claimed = item.custom[vaultAttribute], CollectionRegistry.realPath(claimed) == path,
              folder.vaultRefusal(of: name, vaultID: nil) == nil,
              var secret = try login.secret(for: item.id)
        else { return nil }
        defer { secret.resetBytes(in: 0..<secret.count) }
        guard secret.count == 32 else { return nil }
        let key = secret.withUnsafeBytes { SecureBytes(copying: $0) }
        guard let vault = try? Vault.open(at: URL(fileURLWithPath: path), unlock: .key(key)) else { return nil }
        vault.lock()
        return (ProviderRecords.CreatedCollection(name: name, label: item.label ?? name, vaultID: vault.id), key)
    }
}
