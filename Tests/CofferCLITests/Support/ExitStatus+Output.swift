import CofferCommandLine
import CofferTestSupport

extension ChildProcess.Output {
    /// The exit status as Coffer's table names it; `nil` for one the table lacks (a signal's).
    var exitStatus: ExitStatus? { ExitStatus(rawValue: status) }
}
