import CofferAgent
import Coffer
import Glibc

/// `resolve PID`: what an agent running as this process's user finds PID to be: `program:` and
/// its description, or `unidentified:` and the reason.
enum ResolveCaller {
    /// Runs the command in `arguments` and returns its exit status; `nil` when it is not this one.
    static func run(_ arguments: [String]) -> Int32? {
        guard arguments.count == 2, arguments[0] == "resolve", let pid = pid_t(arguments[1]) else { return nil }
        do throws(CallerResolutionError) {
            print("program: \(try CallerResolver().resolve(pid: pid, uid: geteuid()).program)")
        } catch {
            print("unidentified: \(error)")
        }
        return 0
    }
}
