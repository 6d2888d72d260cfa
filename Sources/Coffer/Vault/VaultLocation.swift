import FoundationEssentials
import Glibc

extension Vault {
    /// The default location of a named vault: `$XDG_DATA_HOME/coffer/<name>.vault`, or
    /// `~/.local/share/coffer/<name>.vault` when `XDG_DATA_HOME` is unset or not absolute.
    ///
    /// A name is 1–128 characters of letters, digits, `.`, `_` and `-`, not starting with `.`.
    public static func defaultURL(name: String = "default") throws(CofferError) -> URL {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard (1...128).contains(name.count), !name.hasPrefix("."), name.allSatisfy(allowed.contains) else {
            throw .invalidArgument(reason: "a vault name is 1-128 letters, digits, '.', '_' or '-', not starting with '.'")
        }
        return try dataHome().appendingPathComponent("coffer").appendingPathComponent("\(name).vault")
    }

    private static func dataHome() throws(CofferError) -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg)
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home).appendingPathComponent(".local/share")
        }
        if let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir {
            return URL(fileURLWithPath: String(cString: directory)).appendingPathComponent(".local/share")
        }
        throw .storageUnavailable(reason: "neither XDG_DATA_HOME nor HOME is set")
    }
}
