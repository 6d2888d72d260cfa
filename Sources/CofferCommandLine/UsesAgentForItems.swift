import Coffer

/// A command that may read or write vault items through the agent. Before the process makes
/// itself not dumpable, ``CommandLineTool`` connects to the agent that command would use and has
/// it identify the process (``KeptAgentConnection``), so that the agent's access rules know it
/// for the program it is (docs/security.md, "Coffer's own tools").
package protocol UsesAgentForItems {
    /// The root command whose options say whether, and which, agent the items come through.
    var itemRoot: any CofferRoot { get }
}

extension UsesAgentForItems {
    /// Connects to the agent, if the command would use one and one runs, and keeps the
    /// connection once the agent has identified this process. `reserved`: descriptors the
    /// command line names, which the connection must not take.
    func identifyToAgent(reserved: [Int32]) {
        guard let socket = itemRoot.agentSocket else { return }
        KeptAgentConnection.open(path: socket, timeout: AgentClient.holdsTimeout, reserved: reserved)
    }
}
