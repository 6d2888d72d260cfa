import Coffer
import CofferAuth
import Foundation

extension AgentTokenBroker {
    /// The broker of `coffer login` and the login commands: a login it hands to the agent names
    /// `coffer`, the executable beside this one, which answers `coffer token` from the agent
    /// itself, so that it gets the login's tokens as this program does.
    static func commandLine(_ agent: AgentStore) -> AgentTokenBroker {
        let coffer = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("coffer").resolvingSymlinksInPath()
        return AgentTokenBroker(agent, allowing: FileManager.default.isExecutableFile(atPath: coffer.path) ? [coffer.path] : [])
    }
}
