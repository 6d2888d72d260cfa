import CofferBase
import FoundationEssentials
import Glibc

/// The temporary files a vault is built in before it is linked into place, and the ones an
/// interrupted creation (a `kill -9` during `init`) leaves behind.
///
/// A temporary file is named `<vault name>.<12 hex digits>.creating` (plus SQLite's `-wal`,
/// `-shm` or `-journal`), beside the vault. One that is older than a minute and owned by this
/// user belongs to no running creation and is removed when the next vault is created there.
enum CreationLeftovers {
    static let suffix = ".creating"
    /// Older than this, a temporary file is stale: building a vault takes well under a second
    /// plus one Argon2id run.
    static let staleAfter: TimeInterval = 60

    static func temporaryPath(for path: String) -> String {
        path + "." + Hex.encode(RandomBytes.make(6)) + suffix
    }

    /// Removes stale temporary files of the vault at `path`. Best effort: nothing here can fail a creation.
    static func removeStale(besides path: String, now: Date = Date()) {
        let folder = FileSecurity.parentFolder(of: path)
        let vaultName = String(path[path.index(after: path.lastIndex(of: "/") ?? path.startIndex)...])
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where isTemporary(name, of: vaultName) {
            let candidate = folder + "/" + name
            var info = stat()
            guard lstat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
                  now.timeIntervalSince1970 - TimeInterval(info.st_mtim.tv_sec) > staleAfter
            else { continue }
            unlink(candidate)
        }
    }

    /// Whether `name` is one of the temporary files `temporaryPath(for:)` makes for `vaultName`.
    static func isTemporary(_ name: String, of vaultName: String) -> Bool {
        var rest = Substring(name)
        guard rest.hasPrefix(vaultName + ".") else { return false }
        rest = rest.dropFirst(vaultName.count + 1)
        let hex = rest.prefix(12)
        guard hex.count == 12, hex.allSatisfy(\.isHexDigit) else { return false }
        rest = rest.dropFirst(12)
        return ["", "-wal", "-shm", "-journal"].contains { rest == suffix + $0 }
    }
}
