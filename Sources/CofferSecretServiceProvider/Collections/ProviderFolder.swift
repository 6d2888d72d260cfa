import Coffer
import Foundation
import Glibc

/// The folder `secret-service` beside the login vault, where the vaults of created collections
/// live: `NAME.vault` for the collection `NAME` (a path element, `[A-Za-z0-9_]+`). A vault
/// path is made here from a name, never taken from anything a client wrote, and a file is
/// opened or removed only after checking that it is a collection's vault in this folder.
struct ProviderFolder {
    /// The folder's path: the login vault's real folder, then `secret-service`.
    let path: String

    init(loginVaultPath: String) {
        let folder = (loginVaultPath as NSString).deletingLastPathComponent
        path = CollectionRegistry.realPath(folder) + "/secret-service"
    }

    /// Where the vault of the collection `name` is.
    func vaultPath(of name: String) -> String {
        path + "/" + name + ".vault"
    }

    /// Whether anything (a file, a link, a folder) is at the vault path of `name`.
    func isTaken(_ name: String) -> Bool {
        var info = stat()
        return lstat(vaultPath(of: name), &info) == 0
    }

    /// Why nothing at `name`'s vault path can be a collection's vault, or `nil` when something
    /// might: the folder must be a real folder (no symbolic link), and the file a regular file
    /// in it (no link).
    func fileRefusal(of name: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return "\(path) is not a folder" }
        let file = vaultPath(of: name)
        guard lstat(file, &info) == 0 else { return errno == ENOENT ? "there is no \(file)" : "cannot read \(file)" }
        guard info.st_mode & S_IFMT == S_IFREG else { return "\(file) is not a regular file" }
        return nil
    }

    /// Why the file at `name`'s vault path is not a collection's vault, or `nil` when it is:
    /// ``fileRefusal(of:)``, then a Coffer vault of this user (its header and permissions,
    /// through ``Vault/open(at:configuration:)``) with the id `vaultID` when one is given.
    func vaultRefusal(of name: String, vaultID: String?) -> String? {
        if let refusal = fileRefusal(of: name) { return refusal }
        let file = vaultPath(of: name)
        guard let vault = try? Vault.open(at: URL(fileURLWithPath: file)) else { return "\(file) is not a Coffer vault of this user" }
        if let vaultID, vault.id != vaultID { return "\(file) is another vault than the collection's" }
        return nil
    }

    /// Removes the vault of `name`, with its `-wal` and `-shm`, after checking it is the
    /// collection's (``vaultRefusal(of:vaultID:)``). A vault already gone is no failure.
    func removeVault(of name: String, vaultID: String) throws(DBusError) {
        guard isTaken(name) else { return }
        if let refusal = vaultRefusal(of: name, vaultID: vaultID) {
            throw .failed("not deleting the collection's vault: \(refusal)")
        }
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { throw .failed("cannot open \(path)") }
        defer { close(folder) }
        for suffix in ["", "-wal", "-shm"] {
            guard unlinkat(folder, name + ".vault" + suffix, 0) == 0 || errno == ENOENT else {
                throw .failed("cannot remove \(vaultPath(of: name))\(suffix)")
            }
        }
        _ = fsync(folder)
    }
}
