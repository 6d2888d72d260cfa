import CofferAgentWire
import Glibc

/// The vault a thin front program asks the agent about, found as the full programs find it:
/// `--vault`, else `$COFFER_VAULT`, else `$XDG_DATA_HOME/coffer/default.vault` (or
/// `~/.local/share/coffer/default.vault`); then its real path, or, for a file that is not here
/// (a share's socket serves its own vault whatever the path), the absolute path with `.` and
/// `..` worked out. `nil` when none can be named: the full program says why.
package enum ThinVaultPath {
    package static func resolve(given: String?) -> String? {
        let named: String
        if let given = given ?? ThinProgram.environment("COFFER_VAULT"), !given.isEmpty {
            named = given
        } else if let data = ThinProgram.environment("XDG_DATA_HOME"), data.hasPrefix("/") {
            named = data + "/coffer/default.vault"
        } else if let home = ThinProgram.environment("HOME"), home.hasPrefix("/") {
            named = home + "/.local/share/coffer/default.vault"
        } else {
            return nil
        }
        if let real = try? PathSafety.realPath(of: named) { return real }
        return absolute(named)
    }

    /// `path` made absolute against the working folder, with empty, `.` and `..` parts removed.
    static func absolute(_ path: String) -> String? {
        var full = path
        if !path.hasPrefix("/") {
            guard let folder = getcwd(nil, 0) else { return nil }
            defer { free(folder) }
            full = String(cString: folder) + "/" + path
        }
        var parts: [Substring] = []
        for part in full.split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
