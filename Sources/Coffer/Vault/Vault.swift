import CofferBase
import Dispatch
import FoundationEssentials
import Glibc

/// An encrypted credential store in one SQLite file.
///
/// A random 256-bit vault key encrypts every item with XChaCha20-Poly1305; key slots wrap
/// that key for a passphrase, a key file or a raw key. Item names exist only inside the
/// ciphertext: rows are keyed by a keyed-BLAKE2b blind index. docs/vault-format.md specifies
/// the file byte for byte.
///
/// A `Vault` is safe to use from any thread, and several processes may share one file.
/// Every write is durable (fsync) before the call returns.
public final class Vault: Sendable {
    /// The vault file.
    public let url: URL
    /// The vault's random identifier, as 32 hex digits. Not secret.
    public let id: String
    /// The settings it was opened with.
    public let configuration: Configuration

    let vaultID: [UInt8]
    /// The part of every item's associated data that does not depend on the row.
    let itemAssociatedDataPrefix: [UInt8]
    let state: Guarded<State>

    struct State {
        let connection: SQLiteConnection
        var keys: VaultKeys?
        var lastUse: ContinuousClock.Instant = .now
        /// Bumped on every lock and unlock, so a stale auto-lock timer does nothing.
        var generation = 0
    }

    private init(url: URL, vaultID: [UInt8], connection: sending SQLiteConnection, configuration: Configuration) {
        self.url = url
        self.vaultID = vaultID
        self.itemAssociatedDataPrefix = VaultFormat.itemAssociatedDataPrefix(vaultID: vaultID)
        self.id = VaultFormat.hexIdentifier(vaultID)
        self.configuration = configuration
        self.state = Guarded(State(connection: connection))
    }

    // MARK: Opening

    /// Opens an existing vault and unlocks it.
    public static func open(
        at url: URL, unlock credential: VaultCredential, configuration: Configuration = Configuration()
    ) throws(CofferError) -> Vault {
        let vault = try open(at: url, configuration: configuration)
        try vault.unlock(with: credential)
        return vault
    }

    /// Opens an existing vault, locked. Key-slot management that needs no key works locked.
    ///
    /// Symbolic links are resolved, and the real file and its real folder are checked. The file
    /// is refused before any statement runs on it unless its header (read through SQLite's own
    /// descriptor) is a vault's of a version this code reads; the file, its -wal and its -shm are
    /// checked again through the descriptors SQLite opened; and the tables must be exactly the
    /// format's. Opening a vault this process already has open leaves the first one's locks as
    /// they were. A refused file is left as it was.
    /// A version 1 or 2 vault is read as it is, and migrated to version 3 by its first write of
    /// items, their access, the access policy or the audit log.
    public static func open(at url: URL, configuration: Configuration = Configuration()) throws(CofferError) -> Vault {
        let requested = url.standardizedFileURL.path
        let path = try FileSecurity.realPath(of: requested)
        try FileSecurity.checkFolder(at: FileSecurity.parentFolder(of: path))
        try FileSecurity.checkPrivateFile(at: path, missing: .vaultNotFound(path: path))
        let readOnlyMedia = FileSecurity.isOnReadOnlyMedia(path)
        let connection = try SQLiteConnection(path: path, create: false, busyTimeout: configuration.busyTimeout, immutable: readOnlyMedia)
        let header = try VaultFileHeader.read(from: connection)
        try header.check()
        if readOnlyMedia, FileSecurity.fileExists(path + "-wal") {
            // Read as immutable, the file would silently lack the WAL's commits.
            throw .storageUnavailable(reason: "the vault is on read-only media with commits still in its -wal; copy the vault and its -wal to writable media")
        }
        let vaultID = try readHeader(connection)
        connection.holds(try FileSecurity.checkOpenDescriptors(of: path))
        try configure(connection)
        connection.switchesToWALBeforeWriting = !header.isWAL
        connection.allowCheckpointOnClose()
        return Vault(url: URL(fileURLWithPath: requested), vaultID: vaultID, connection: connection, configuration: configuration)
    }

    /// Opens the vault at `url`, creating it with `credential` as its first key slot if there is none.
    public static func openOrCreate(
        at url: URL, unlock credential: VaultCredential, configuration: Configuration = Configuration()
    ) throws(CofferError) -> Vault {
        do {
            return try open(at: url, unlock: credential, configuration: configuration)
        } catch .vaultNotFound {
            do {
                return try create(at: url, with: credential, configuration: configuration)
            } catch .vaultExists {
                // Another process created it first.
                return try open(at: url, unlock: credential, configuration: configuration)
            }
        }
    }

    /// Creates a new vault whose first key slot opens with `credential`, and returns it unlocked.
    ///
    /// The folder is created with mode 0700 if missing; the file is 0600. The vault is built
    /// under a temporary name and linked into place, so no process ever sees a half-made vault.
    /// Its access policy is `confirm`: a program reads the items it created, and the agent asks
    /// before another reads them (docs/security.md).
    public static func create(
        at url: URL, with credential: VaultCredential, configuration: Configuration = Configuration()
    ) throws(CofferError) -> Vault {
        let path = url.standardizedFileURL.path
        let folder = FileSecurity.parentFolder(of: path)
        try FileSecurity.createPrivateFolder(at: folder)
        try FileSecurity.checkFolder(at: folder)
        try FileSecurity.checkFreeForNewFile(path)
        CreationLeftovers.removeStale(besides: path)

        let opener = try credential.source.opener()
        guard opener.kind.mayCreateVault else {
            throw .invalidArgument(
                reason: "create a vault with a passphrase, key file or key, then add a Secret Service or systemd-creds slot, so that losing the keyring or the machine never loses the vault")
        }
        let keys = VaultKeys.generate()
        let vaultID = RandomBytes.make(VaultFormat.vaultIDLength)
        let now = configuration.now()
        let slot = try opener.makeSlot(
            wrapping: keys.vaultKey, vaultID: vaultID, cost: configuration.passphraseCost, now: now).row

        let temporary = CreationLeftovers.temporaryPath(for: path)
        let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw .storageUnavailable(reason: "cannot create a file in \(folder): \(describeErrno())")
        }
        close(descriptor)
        defer {
            for suffix in ["", "-wal", "-shm"] { unlink(temporary + suffix) }
        }
        try build(at: temporary, keys: keys, vaultID: vaultID, slot: slot, now: now, configuration: configuration)
        FileSecurity.syncFile(at: temporary)
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { throw .vaultExists(path: path) }
            throw .storageUnavailable(reason: "cannot create \(path): \(describeErrno())")
        }
        FileSecurity.syncFolder(at: folder)

        let vault = try open(at: URL(fileURLWithPath: path), configuration: configuration)
        vault.install(keys)
        return vault
    }

    private static func build(
        at path: String, keys: VaultKeys, vaultID: [UInt8], slot: SlotRow, now: Date, configuration: Configuration
    ) throws(CofferError) {
        let connection = try SQLiteConnection(path: path, create: false, busyTimeout: configuration.busyTimeout)
        // Closing the connection at the end of this scope checkpoints and removes the WAL.
        connection.allowCheckpointOnClose()
        try connection.execute("PRAGMA application_id = \(VaultFormat.applicationID)")
        try connection.execute("PRAGMA user_version = \(VaultFormat.version)")
        try connection.execute("PRAGMA journal_mode = WAL")
        try configure(connection)
        try connection.transaction { () throws(CofferError) in
            try VaultSchema.create(connection)
            try connection.with("INSERT INTO vault (singleton, vault_id, key_check, created_at) VALUES (1, ?1, ?2, ?3)") {
                statement throws(CofferError) in
                try statement.bind(.blob(vaultID), .blob(keys.keyCheck), .integer(Int64(now.timeIntervalSince1970)))
                try statement.run()
            }
            _ = try slot.insert(connection)
            try writePolicy(.confirm, vaultID: vaultID, connection, keys)
        }
    }

    /// The connection's settings; none of them writes to the file.
    private static func configure(_ connection: SQLiteConnection) throws(CofferError) {
        // FULL: every commit is fsynced, so an acknowledged write survives a crash or power loss.
        try connection.execute("PRAGMA synchronous = FULL")
        // Freed pages (removed items, replaced key slots) are overwritten with zeros.
        try connection.execute("PRAGMA secure_delete = ON")
        try connection.execute("PRAGMA journal_size_limit = 4194304")
        try connection.execute("PRAGMA mmap_size = 268435456")
    }

    /// Checks what SQLite reads of the header and the schema, and returns the vault id. Reads only.
    private static func readHeader(_ connection: SQLiteConnection) throws(CofferError) -> [UInt8] {
        guard try connection.integer("PRAGMA application_id") == Int64(VaultFormat.applicationID) else {
            throw .corruptVault(reason: "not a Coffer vault")
        }
        let version = try formatVersion(connection)
        try VaultSchema.check(connection, version: version)
        if version >= VaultFormat.accessVersion { try checkPolicyRow(connection) }
        let rows = try connection.with("SELECT vault_id, key_check FROM vault LIMIT 2") { statement throws(CofferError) in
            var rows: [(id: [UInt8], check: [UInt8])] = []
            while try statement.step() { rows.append((statement.blob(at: 0), statement.blob(at: 1))) }
            return rows
        }
        guard rows.count == 1, let row = rows.first, row.id.count == VaultFormat.vaultIDLength else {
            throw .corruptVault(reason: "missing vault identifier")
        }
        guard row.check.count == VaultFormat.keyCheckLength else { throw .corruptVault(reason: "the key check is damaged") }
        return row.id
    }

    // MARK: Locking

    /// Whether the vault is locked. A locked vault throws ``CofferError/locked`` for item access.
    public var isLocked: Bool {
        state.withLock { $0.keys == nil }
    }

    /// Unlocks the vault with a credential that opens one of its key slots.
    ///
    /// Runs Argon2id once for a passphrase (never per item). Throws
    /// ``CofferError/wrongPassphrase`` or ``CofferError/wrongKey`` when no slot opens.
    public func unlock(with credential: VaultCredential) throws(CofferError) {
        install(try keys(openedBy: credential))
    }

    /// Checks that `credential` opens one of the vault's key slots, changing nothing: the vault
    /// stays locked or unlocked as it was, and the keys derived are zeroed. Throws as
    /// ``unlock(with:)`` does. The check reads the slots through the vault's own connection:
    /// a second `Vault` on the same file in this process would drop, when its descriptors
    /// close, the POSIX locks SQLite holds for this one.
    package func check(_ credential: VaultCredential) throws(CofferError) {
        _ = try keys(openedBy: credential)
    }

    /// The keys a slot that `credential` opens holds, checked against the vault's key check.
    private func keys(openedBy credential: VaultCredential) throws(CofferError) -> VaultKeys {
        let opener = try credential.source.opener()
        let (rows, storedCheck) = try state.withLock { state throws(CofferError) in
            try state.connection.readTransaction { () throws(CofferError) in
                (try SlotRow.all(state.connection), try Self.storedKeyCheck(state.connection))
            }
        }
        // The KDF runs outside the lock, so other threads are not held up by it.
        let keys = VaultKeys(vaultKey: try opener.unwrap(rows, vaultID: vaultID).vaultKey)
        guard keys.keyCheck == storedCheck else {
            throw .corruptVault(reason: "a key slot holds a key that is not this vault's")
        }
        return keys
    }

    /// Whether the vault is unlocked with keys that are still the vault's: `false` when it is
    /// locked, or when another process has rotated the vault key since (the vault then locks
    /// itself). One small read; for a process that holds a vault open for a long time.
    public func isUnlockedWithCurrentKeys() -> Bool {
        do throws(CofferError) {
            try withUnlockedKeys { connection, keys throws(CofferError) in try Self.verifyKeyCheck(connection, keys) }
            return true
        } catch {
            return false
        }
    }

    /// Locks the vault: the vault key and its subkeys are dropped and zeroed.
    public func lock() {
        state.withLock { state in
            state.keys = nil
            state.generation += 1
        }
    }

    func install(_ keys: VaultKeys) {
        let generation = state.withLock { state in
            state.keys = keys
            state.lastUse = .now
            state.generation += 1
            return state.generation
        }
        if let idle = configuration.autoLockAfter { scheduleAutoLock(generation: generation, after: idle) }
    }

    private func scheduleAutoLock(generation: Int, after delay: Duration) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(delay.clampedNanoseconds)) { [weak self] in
            self?.autoLockIfIdle(generation: generation)
        }
    }

    private func autoLockIfIdle(generation: Int) {
        guard let limit = configuration.autoLockAfter else { return }
        let remaining: Duration? = state.withLock { state in
            guard state.generation == generation, state.keys != nil else { return nil }
            let idle = ContinuousClock.now - state.lastUse
            guard idle < limit else {
                state.keys = nil
                state.generation += 1
                return nil
            }
            return limit - idle
        }
        if let remaining { scheduleAutoLock(generation: generation, after: remaining) }
    }

    /// Runs `body` with the connection and the unlocked keys, under the vault's lock.
    ///
    /// If `body` finds the keys stale (another process rotated the vault key) it throws
    /// ``CofferError/locked``, and the vault locks itself.
    func withUnlockedKeys<R: Sendable>(
        _ body: (SQLiteConnection, VaultKeys) throws(CofferError) -> R
    ) throws(CofferError) -> R {
        try state.withLock { state throws(CofferError) -> R in
            guard let keys = state.keys else { throw .locked }
            state.lastUse = .now
            do throws(CofferError) {
                return try body(state.connection, keys)
            } catch {
                if error == .locked { state.keys = nil }
                throw error
            }
        }
    }

    /// Runs `body` with the connection, whether or not the vault is unlocked.
    func withConnection<R: Sendable>(_ body: (SQLiteConnection) throws(CofferError) -> R) throws(CofferError) -> R {
        try state.withLock { state throws(CofferError) -> R in try body(state.connection) }
    }

    /// The file's format version (`PRAGMA user_version`), checked as one this code reads.
    static func formatVersion(_ connection: SQLiteConnection) throws(CofferError) -> UInt32 {
        try VaultFormat.checkVersion(try connection.integer("PRAGMA user_version") ?? 0)
    }

    static func storedKeyCheck(_ connection: SQLiteConnection) throws(CofferError) -> [UInt8] {
        let check = try connection.with("SELECT key_check FROM vault WHERE singleton = 1") {
            statement throws(CofferError) in try statement.step() ? statement.blob(at: 0) : nil
        }
        guard let check else { throw .corruptVault(reason: "missing vault row") }
        return check
    }

    /// Throws ``CofferError/locked`` when another process has rotated the vault key.
    static func verifyKeyCheck(_ connection: SQLiteConnection, _ keys: VaultKeys) throws(CofferError) {
        guard try storedKeyCheck(connection) == keys.keyCheck else { throw .locked }
    }

    /// Moves the WAL into the main file and truncates it, so replaced key material does not
    /// linger in the WAL. Best effort: readers in other processes can hold it back.
    static func truncateLog(_ connection: SQLiteConnection) {
        try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}
