import Coffer
import FoundationEssentials
import Glibc

/// Real paths (every link resolved), as the agent names vaults.
package enum VaultPaths {
    package static func real(_ url: URL) throws -> String {
        guard let resolved = realpath(url.path, nil) else { throw CofferError.vaultNotFound(path: url.path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
