/// How the agent's Secret Service (`agent start --secret-service`) stands, as status reports it.
package enum SecretServiceStatus: UInt8, Sendable, Hashable, CaseIterable {
    /// It owns `org.freedesktop.secrets` and serves the session bus.
    case serving = 1
    /// The session bus closed; the agent, which holds vaults for its socket's clients, serves
    /// its socket alone.
    case busClosed = 2
    /// The bus took the name away; the agent serves its socket alone.
    case nameLost = 3

    /// The word `agent status --json` shows.
    package var name: String {
        switch self {
        case .serving: "serving"
        case .busClosed: "busClosed"
        case .nameLost: "nameLost"
        }
    }

    /// What `agent status` says, after `Secret Service: `.
    package var summary: String {
        switch self {
        case .serving: "serving org.freedesktop.secrets"
        case .busClosed: "the session bus closed; the agent serves its socket alone"
        case .nameLost: "the bus took org.freedesktop.secrets away; the agent serves its socket alone"
        }
    }
}
