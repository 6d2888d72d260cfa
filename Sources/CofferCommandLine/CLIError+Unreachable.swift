import Coffer
import CofferAgentWire

extension CLIError {
    /// An agent that cannot be reached: ``ExitStatus/insecurePermissions`` when what answers is
    /// not this user's agent (nothing was sent to it), else ``ExitStatus/unavailable``.
    package init(_ unreachable: AgentSocket.Unreachable) {
        if case .untrusted = unreachable {
            self.init(message: "\(unreachable)", exitStatus: .insecurePermissions)
        } else {
            self.init(message: "\(unreachable)", exitStatus: .unavailable)
        }
    }
}
