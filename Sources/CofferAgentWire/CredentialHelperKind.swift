/// The credential helpers whose `get` the agent answers in one request (`helperGet`, docs/agent.md,
/// section 3), so that their thin executables need neither Foundation nor the store's code.
package enum CredentialHelperKind: UInt8, Sendable, CaseIterable {
    /// git-credential-coffer: the input is git's credential description, the answer its `key=value` lines.
    case git = 0x01
    /// docker-credential-coffer: the input is the server's URL, the answer the credentials' JSON.
    case docker = 0x02
}
