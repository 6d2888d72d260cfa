import CofferCommandLine

// The commands that keep sessions in the vault, through the agent when it holds it: each
// identifies the process to the agent before it makes itself not dumpable.
extension Login: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
extension TokenCommand: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
extension Status: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
extension Logout: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
extension SSOExchange: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
extension Request: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
