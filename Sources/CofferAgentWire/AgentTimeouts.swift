/// How long a client waits on the agent.
package enum AgentTimeouts {
    /// For the agent to say whether it holds a vault, or to identify the client.
    package static let holds = Duration.seconds(3)
    /// For an item request: the agent may first ask the person whether this program may use the
    /// item, and a prompter has 120 s to answer.
    package static let item = Duration.seconds(150)
}
