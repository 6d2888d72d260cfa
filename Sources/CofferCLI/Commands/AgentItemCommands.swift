import CofferCommandLine

// The commands that use items, through the agent when it holds the vault: each identifies the
// process to the agent before it makes itself not dumpable.
extension Get: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
extension SetCommand: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
extension Delete: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
extension List: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
extension Import: UsesAgentForItems { var itemRoot: any CofferRoot { root } }
