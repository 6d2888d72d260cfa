import Glibc

/// Why a child could not be started.
package enum ChildSpawnFailure: Error, Equatable, CustomStringConvertible {
    /// The program was not named by an absolute path (no `$PATH` search is made).
    case notAbsolute(String)
    /// `posix_spawn` failed: `ENOENT` when there is no such program, `EACCES` when it may not be run.
    case cannotRun(String, errno: Int32)
    /// A descriptor could not be prepared.
    case system(call: String, errno: Int32)

    package var description: String {
        switch self {
        case .notAbsolute(let path): "cannot run \(path): not an absolute path"
        case .cannotRun(let path, let code): "cannot run \(path): \(String(cString: strerror(code)))"
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        }
    }
}
