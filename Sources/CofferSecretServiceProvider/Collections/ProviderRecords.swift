import Coffer
import Foundation

/// The provider's own bookkeeping, in the login vault, out of every Secret Service client's
/// reach: generic passwords of the reserved service `coffer:secret-service`, which
/// ``ClientVault`` neither lists, reads, writes, moves nor deletes for a client.
///
/// - `collection:NAME`: a collection `CreateCollection` made. The secret is its vault's 32-byte
///   key, the label its label, the custom attribute `vault-id` its vault's id. The vault file is
///   always `NAME.vault` in the provider's folder (``ProviderFolder``): no path is kept.
/// - `alias:ALIAS`: an alias; the secret is the name of the collection it names.
/// - `migrated`: the records of earlier versions were taken over (``LegacyCollectionRecords``).
///
/// Being items of the login vault, the records are encrypted as its items are, unlock and lock
/// with it, and are re-encrypted when its key is rotated.
enum ProviderRecords {
    static let service = "coffer:secret-service"
    static let vaultIDAttribute = "vault-id"

    /// What a record says about a created collection, without its key.
    struct CreatedCollection: Equatable {
        let name: String
        let label: String
        let vaultID: String
    }

    /// Whether `id` is one of the provider's records (in any vault: a client may not make one anywhere).
    static func isReserved(_ id: ItemID) -> Bool {
        id.itemClass == .genericPassword && id.service == service
    }

    // MARK: Created collections

    static func collections(in login: Vault) throws(CofferError) -> [CreatedCollection] {
        try login.items(matching: ItemQuery(itemClass: .genericPassword, service: service)).compactMap { attributes in
            guard attributes.id.account.hasPrefix(collectionPrefix), let vaultID = attributes.custom[vaultIDAttribute] else { return nil }
            let name = String(attributes.id.account.dropFirst(collectionPrefix.count))
            guard ObjectPaths.isElement(name), name != CollectionRegistry.loginName else { return nil }
            return CreatedCollection(name: name, label: attributes.label ?? name, vaultID: vaultID)
        }
    }

    /// The key of the created collection `name`, in secure memory; `nil` when there is no such
    /// record or it holds no 32-byte key.
    static func key(of name: String, in login: Vault) throws(CofferError) -> SecureBytes? {
        guard var secret = try login.secret(for: collectionID(name)) else { return nil }
        defer { secret.resetBytes(in: 0..<secret.count) }
        guard secret.count == 32 else { return nil }
        return secret.withUnsafeBytes { SecureBytes(copying: $0) }
    }

    static func addCollection(_ collection: CreatedCollection, key: SecureBytes, to login: Vault) throws(CofferError) {
        var secret = key.withUnsafeBytes { Data($0) }
        defer { secret.resetBytes(in: 0..<secret.count) }
        try login.set(secret, for: collectionID(collection.name), options: ItemOptions(
            label: collection.label, custom: [vaultIDAttribute: collection.vaultID], contentType: "application/octet-stream"))
    }

    static func relabel(_ name: String, to label: String, in login: Vault) throws(CofferError) {
        guard var item = try login.item(for: collectionID(name)) else { throw .itemNotFound }
        defer { item.secret.resetBytes(in: 0..<item.secret.count) }
        var options = item.attributes.options
        options.label = label
        try login.set(item.secret, for: collectionID(name), options: options)
    }

    /// Removes the record of `name` and every alias that names it.
    static func removeCollection(_ name: String, from login: Vault) throws(CofferError) {
        _ = try login.remove(collectionID(name))
        for attributes in try login.items(matching: ItemQuery(itemClass: .genericPassword, service: service))
        where attributes.id.account.hasPrefix(aliasPrefix) {
            if try alias(String(attributes.id.account.dropFirst(aliasPrefix.count)), in: login) == name { _ = try login.remove(attributes.id) }
        }
    }

    // MARK: Aliases

    /// The name of the collection `alias` names, if any.
    static func alias(_ alias: String, in login: Vault) throws(CofferError) -> String? {
        try login.secret(for: aliasID(alias)).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// Points `alias` at the collection `name`, or removes it for `nil`.
    static func setAlias(_ alias: String, to name: String?, in login: Vault) throws(CofferError) {
        guard let name else {
            _ = try login.remove(aliasID(alias))
            return
        }
        try login.set(Data(name.utf8), for: aliasID(alias), options: ItemOptions(label: "Coffer alias \(alias)"))
    }

    // MARK: Taking over earlier versions' records

    static func isMigrated(_ login: Vault) throws(CofferError) -> Bool {
        try login.item(for: migratedID) != nil
    }

    static func markMigrated(_ login: Vault) throws(CofferError) {
        try login.set(Data("1".utf8), for: migratedID, options: ItemOptions(label: "Coffer Secret Service records taken over"))
    }

    // MARK: Names

    private static let collectionPrefix = "collection:"
    private static let aliasPrefix = "alias:"
    private static let migratedID = ItemID.genericPassword(service: service, account: "migrated")

    private static func collectionID(_ name: String) -> ItemID { .genericPassword(service: service, account: collectionPrefix + name) }
    private static func aliasID(_ alias: String) -> ItemID { .genericPassword(service: service, account: aliasPrefix + alias) }
}
