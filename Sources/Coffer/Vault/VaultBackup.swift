import FoundationEssentials
import Glibc

extension Vault {
    /// Writes a consistent copy of the vault, as it is at one moment, to a new file at `url`:
    /// mode 0600, in a folder that is created 0700 when missing and checked as a vault's.
    ///
    /// The copy is a vault of its own with the same key slots, so it opens with the same
    /// credentials. Needs no key: the vault may be locked. Writers in other processes go on
    /// while it runs. The copy is built under a temporary name and linked into place, so
    /// nothing is ever overwritten and no half-made copy is ever at `url`
    /// (``CofferError/vaultExists(path:)`` when something is there already).
    public func backup(to url: URL) throws(CofferError) {
        let path = url.standardizedFileURL.path
        let folder = FileSecurity.parentFolder(of: path)
        try FileSecurity.createPrivateFolder(at: folder)
        try FileSecurity.checkFolder(at: folder)
        try FileSecurity.checkFreeForNewFile(path)
        let temporary = CreationLeftovers.temporaryPath(for: path)
        let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .storageUnavailable(reason: "cannot create a file in \(folder): \(describeErrno())") }
        close(descriptor)
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
        }
        try withConnection { connection throws(CofferError) in try connection.backup(toEmptyFileAt: temporary) }
        guard !FileSecurity.fileExists(temporary + "-wal") else { throw .storageUnavailable(reason: "the copy kept a -wal") }
        FileSecurity.syncFile(at: temporary)
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { throw .vaultExists(path: path) }
            throw .storageUnavailable(reason: "cannot create \(path): \(describeErrno())")
        }
        FileSecurity.syncFolder(at: folder)
    }
}
