import Coffer
import CofferBase
import Foundation
import Glibc

/// The collections the provider serves, where their vaults are, and whether each is unlocked.
///
/// - **Login**: the vault `coffer` selects by default; the `default` alias. Unlocked while the
///   agent holds it.
/// - **Created**: `CreateCollection` makes a vault with a random 32-byte key in the provider's
///   folder (``ProviderFolder``). Its key, label and aliases are the provider's records in the
///   login vault (``ProviderRecords``), where no client reaches them, so a created collection
///   unlocks with the login collection and needs no prompt of its own.
/// - **Held**: any other vault the agent holds, from the moment it is first seen held.
/// - **Upstream**: with ``UpstreamItems`` (in a sandbox), the share's items are the login
///   collection, and the only one: no vault, no created or held collection.
///
/// Used on the main-loop thread only.
final class CollectionRegistry {
    static let loginName = "login"
    static let loginLabel = "Login"
    /// At most this many created collections exist at once (`CreateCollection` is refused past it).
    static let maxCreated = 128

    private let loginURL: URL
    private let keeper: any VaultKeeper
    /// The share served in place of vaults, if any.
    private let upstream: UpstreamItems?
    /// How long a vault the provider unlocks stays held, in seconds.
    let lifetime: Double
    /// Created collections as last read from the login vault's records, so they still show
    /// (locked) while it is locked, with their vaults' ids.
    private var created: [String: ServedCollection] = [:]
    private var createdVaultIDs: [String: String] = [:]
    /// Vaults seen held, so they still show (locked) once the agent forgets them.
    private var seenHeld: [String: ServedCollection] = [:]
    /// Created collections that `Lock` locked while the login collection stays unlocked.
    private var lockedCreated: Set<String> = []
    /// When ``created`` was last read from the login vault. Created collections change
    /// through this registry, which updates it; rereading at most every few seconds keeps a
    /// search from costing a search of the login vault's records too.
    private var createdReadAt: ContinuousClock.Instant?
    static let createdRereadAfter = Duration.seconds(5)
    /// The login vault's real path, once it exists (it does not move while the agent runs).
    private var resolvedLoginPath: String?

    init(loginVault: URL, keeper: any VaultKeeper, lifetime: Double, upstream: UpstreamItems? = nil) {
        self.loginURL = loginVault.standardizedFileURL
        self.keeper = keeper
        self.lifetime = lifetime
        self.upstream = upstream
    }

    /// The login vault's path as the agent names it: its real path once it exists; the share's
    /// socket for an upstream collection.
    var loginPath: String {
        if let upstream { return upstream.socket }
        if let resolvedLoginPath { return resolvedLoginPath }
        guard let resolved = Self.existingRealPath(loginURL.path) else { return loginURL.path }
        resolvedLoginPath = resolved
        return resolved
    }

    var login: ServedCollection {
        ServedCollection(name: Self.loginName, vaultPath: loginPath, label: Self.loginLabel, kind: upstream == nil ? .login : .upstream)
    }

    /// Every collection, login first, then by name.
    func all() -> [ServedCollection] {
        if upstream != nil { return [login] }
        refreshCreated()
        refreshHeld()
        let others = (Array(created.values) + Array(seenHeld.values)).sorted { $0.name < $1.name }
        return [login] + others
    }

    func collection(named name: String) -> ServedCollection? {
        if name == Self.loginName { return login }
        if let found = created[name] ?? seenHeld[name] { return found }
        return all().first { $0.name == name }
    }

    // MARK: Locking

    /// The collection's vault, unlocked; `nil` while it is locked. A created collection opens
    /// here with its key from the provider's records, unless `Lock` locked it.
    func vault(of collection: ServedCollection) -> Vault? {
        if let vault = keeper.vault(at: collection.vaultPath) { return vault }
        guard collection.kind == .created, !lockedCreated.contains(collection.name), let login = keeper.vault(at: loginPath),
              folder.fileRefusal(of: collection.name) == nil
        else { return nil }
        do throws(CofferError) {
            guard let key = try ProviderRecords.key(of: collection.name, in: login) else { return nil }
            let vault = try Vault.open(at: URL(fileURLWithPath: collection.vaultPath), unlock: .key(key))
            guard vault.id == createdVaultIDs[collection.name] else { return nil }
            keeper.keep(vault, at: collection.vaultPath, for: lifetime)
            return vault
        } catch {
            return nil
        }
    }

    /// What clients reach of the collection's items: its unlocked vault without the provider's
    /// records, or the share's items; `nil` while the vault is locked.
    func items(of collection: ServedCollection) -> (any CollectionItems)? {
        if collection.kind == .upstream { return upstream }
        return vault(of: collection).map(ClientVault.init)
    }

    /// Whether the collection is locked: its vault is not held, or the share does not answer.
    func isLocked(_ collection: ServedCollection) -> Bool {
        if collection.kind == .upstream { return !(upstream?.isAvailable ?? false) }
        return vault(of: collection) == nil
    }

    /// Makes the agent forget the collection's vault. Locking the login collection locks the
    /// created ones too: their keys are in it.
    func lock(_ collection: ServedCollection) {
        keeper.forget(collection.vaultPath)
        switch collection.kind {
        case .login:
            for created in created.values { keeper.forget(created.vaultPath) }
        case .created:
            lockedCreated.insert(collection.name)
        case .held, .upstream:
            break
        }
    }

    /// Unlocks what needs no passphrase: a created collection while the login collection is
    /// unlocked. Returns whether the collection is unlocked now.
    func unlockWithoutPrompt(_ collection: ServedCollection) -> Bool {
        if collection.kind == .created { lockedCreated.remove(collection.name) }
        return !isLocked(collection)
    }

    /// Unlocks the vault at `collection` with a passphrase, or creates the login vault with it
    /// when there is none yet (as gnome-keyring creates the login keyring at the first unlock).
    /// Runs Argon2id: call it off the main loop. Returns the unlocked vault.
    static func open(_ collection: ServedCollection, passphrase: SecureBytes, loginURL: URL) throws(CofferError) -> Vault {
        let credential = try VaultCredential.passphrase(utf8: passphrase)
        if collection.kind == .login {
            return try Vault.openOrCreate(at: loginURL, unlock: credential)
        }
        return try Vault.open(at: URL(fileURLWithPath: collection.vaultPath), unlock: credential)
    }

    var loginVaultURL: URL { loginURL }

    /// Holds a vault the provider unlocked (after a prompt).
    func hold(_ vault: Vault, for collection: ServedCollection) {
        keeper.keep(vault, at: Self.realPath(collection.vaultPath), for: lifetime)
        if collection.kind == .login { lockedCreated.removeAll() }
    }

    // MARK: Creating and deleting

    /// The provider's folder, beside the login vault.
    var folder: ProviderFolder { ProviderFolder(loginVaultPath: loginPath) }

    /// How many created collections exist.
    var createdCount: Int {
        refreshCreated()
        return created.count
    }

    /// Makes a new collection labelled `label`: a new vault in the provider's folder, whose
    /// random key becomes a record in the login vault, which must be unlocked.
    func create(label: String) throws(DBusError) -> ServedCollection {
        guard upstream == nil else { throw Self.oneUpstreamCollection }
        guard let login = keeper.vault(at: loginPath) else { throw .isLocked("the login collection is locked; unlock it first") }
        guard createdCount < Self.maxCreated else {
            throw .limitsExceeded("there are \(Self.maxCreated) created collections; delete one first")
        }
        let folder = folder
        let names = Set(all().map(\.name))
        let base = ObjectPaths.element(fromLabel: label)
        var name = base
        var counter = 1
        while names.contains(name) || folder.isTaken(name) {
            counter += 1
            name = base + "_\(counter)"
        }
        let path = folder.vaultPath(of: name)
        let key = SecureBytes.random(count: 32)
        do throws(CofferError) {
            let vault = try Vault.create(at: URL(fileURLWithPath: path), with: .key(key))
            do throws(CofferError) {
                // Its items follow the login collection's policy.
                try vault.setAccessPolicy(try login.accessPolicy())
                try ProviderRecords.addCollection(.init(name: name, label: label, vaultID: vault.id), key: key, to: login)
            } catch {
                // Nothing records the new vault: it goes, so that the name is free again.
                vault.lock()
                try? folder.removeVault(of: name, vaultID: vault.id)
                throw error
            }
            keeper.keep(vault, at: path, for: lifetime)
            let collection = ServedCollection(name: name, vaultPath: path, label: label, kind: .created)
            created[name] = collection
            createdVaultIDs[name] = vault.id
            return collection
        } catch {
            throw DBusError(error)
        }
    }

    /// Deletes a created collection: its record (and its aliases), then its vault, once that
    /// is checked to be the collection's own vault in the provider's folder. The login
    /// collection and held vaults are not deleted: they are the user's vaults, not the Secret
    /// Service's.
    func delete(_ collection: ServedCollection) throws(DBusError) {
        guard collection.kind == .created, let vaultID = createdVaultIDs[collection.name] else {
            throw .notSupported("only collections made by CreateCollection can be deleted; this one is a vault of its own")
        }
        guard let login = keeper.vault(at: loginPath) else { throw .isLocked() }
        let folder = folder
        if folder.isTaken(collection.name), let refusal = folder.vaultRefusal(of: collection.name, vaultID: vaultID) {
            throw .failed("not deleting the collection: \(refusal)")
        }
        do throws(CofferError) {
            try ProviderRecords.removeCollection(collection.name, from: login)
        } catch {
            throw DBusError(error)
        }
        keeper.forget(collection.vaultPath)
        created[collection.name] = nil
        createdVaultIDs[collection.name] = nil
        lockedCreated.remove(collection.name)
        try folder.removeVault(of: collection.name, vaultID: vaultID)
    }

    /// Relabels a created collection (its record's label). The login and held collections
    /// keep their names.
    func relabel(_ collection: ServedCollection, to label: String) throws(DBusError) {
        guard collection.kind == .created else { throw .notSupported("this collection's label is fixed") }
        guard let login = keeper.vault(at: loginPath) else { throw .isLocked() }
        do throws(CofferError) {
            try ProviderRecords.relabel(collection.name, to: label, in: login)
        } catch {
            throw DBusError(error)
        }
        created[collection.name]?.label = label
    }

    // MARK: Aliases

    /// The collection an alias names: `default` is the login collection; others are the
    /// provider's records, readable while the login vault is unlocked.
    func collection(forAlias alias: String) -> ServedCollection? {
        if alias == "default" { return login }
        guard let login = keeper.vault(at: loginPath), let name = try? ProviderRecords.alias(alias, in: login) else { return nil }
        return collection(named: name)
    }

    /// Points `alias` at `collection`, or removes it for `nil`. `default` stays the login
    /// collection: it is the vault `coffer` uses by default.
    func setAlias(_ alias: String, to collection: ServedCollection?) throws(DBusError) {
        guard ObjectPaths.isElement(alias) else { throw .invalidArguments("an alias is letters, digits and _") }
        guard alias != "default" || collection == nil || collection?.kind == .login else {
            throw .notSupported("the default alias is the vault coffer uses by default; set $COFFER_VAULT to change it")
        }
        guard alias != "default" else { return }
        guard upstream == nil else { throw Self.oneUpstreamCollection }
        guard let login = keeper.vault(at: loginPath) else { throw .isLocked() }
        do throws(CofferError) {
            try ProviderRecords.setAlias(alias, to: collection?.name, in: login)
        } catch {
            throw DBusError(error)
        }
    }

    /// The answer to a change of collections while serving a share: it is the only one.
    static let oneUpstreamCollection = DBusError.notSupported("this Secret Service serves one share's items, as its only collection")

    // MARK: Helpers

    /// Reads the created collections from the provider's records, while the login vault is
    /// unlocked, at most every ``createdRereadAfter``; the first time, takes over the records
    /// of earlier versions (``LegacyCollectionRecords``).
    private func refreshCreated() {
        if let createdReadAt, ContinuousClock.now - createdReadAt < Self.createdRereadAfter { return }
        guard let login = keeper.vault(at: loginPath) else { return }
        let folder = folder
        LegacyCollectionRecords.takeOver(in: login, folder: folder)
        guard let records = try? ProviderRecords.collections(in: login) else { return }
        created = Dictionary(records.map { record in
            (record.name, ServedCollection(name: record.name, vaultPath: folder.vaultPath(of: record.name), label: record.label, kind: .created))
        }) { first, _ in first }
        createdVaultIDs = Dictionary(records.map { ($0.name, $0.vaultID) }) { first, _ in first }
        createdReadAt = .now
    }

    /// Notes every other vault the agent holds, named after its file.
    private func refreshHeld() {
        let known = Set([loginPath] + created.values.map(\.vaultPath) + seenHeld.values.map(\.vaultPath))
        for path in keeper.heldPaths where !known.contains(path) {
            let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            var name = ObjectPaths.element(fromLabel: stem)
            let taken = Set([Self.loginName] + created.keys + seenHeld.keys)
            var counter = 1
            while taken.contains(name) {
                counter += 1
                name = ObjectPaths.element(fromLabel: stem) + "_\(counter)"
            }
            seenHeld[name] = ServedCollection(name: name, vaultPath: path, label: stem, kind: .held)
        }
    }

    /// The real path of `path` when it exists (as the agent names vaults), else `path`.
    static func realPath(_ path: String) -> String {
        existingRealPath(path) ?? path
    }

    private static func existingRealPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
