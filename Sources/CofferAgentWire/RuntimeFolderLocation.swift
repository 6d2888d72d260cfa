import Glibc

/// Where the user's private folder for run-time files is (``PathSafety``), worked out from the
/// environment alone: `$XDG_RUNTIME_DIR/coffer`; without that variable, `coffer/run` in the
/// user's state folder (`$XDG_STATE_HOME`, else `~/.local/state`). Creates and checks nothing.
package enum RuntimeFolderLocation {
    /// The folder, and the state folder's `coffer` folder above it when the folder is in the state
    /// folder (created first, with mode 0700, by whoever creates the folder).
    package static func resolve(environment: (String) -> String?) throws(PathSafety.Problem) -> (folder: String, stateParent: String?) {
        if let runtime = environment("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") { return (runtime + "/coffer", nil) }
        let state = try stateFolder(environment: environment)
        return (state + "/coffer/run", state + "/coffer")
    }

    /// `$XDG_STATE_HOME` when it names an absolute path, else `~/.local/state`. The home folder
    /// (`$HOME`, else the user database's) must exist: nothing is created above it.
    private static func stateFolder(environment: (String) -> String?) throws(PathSafety.Problem) -> String {
        if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") { return state }
        guard let home = environment("HOME").flatMap({ $0.hasPrefix("/") ? $0 : nil }) ?? homeFromUserDatabase() else {
            throw .unavailable(reason: "no folder for run-time files: set $XDG_RUNTIME_DIR, $XDG_STATE_HOME or $HOME")
        }
        var info = stat()
        guard stat(home, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .unavailable(reason: "no folder for run-time files: the home folder \(home) does not exist; set $XDG_RUNTIME_DIR or $XDG_STATE_HOME")
        }
        return (home == "/" ? "" : home) + "/.local/state"
    }

    private static func homeFromUserDatabase() -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &result) == 0, result != nil, let directory = entry.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }
}
