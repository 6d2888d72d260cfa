import Coffer
import CofferAgentWire

/// The rules by which a credential helper answers a `get` (git's matching of protocol, host,
/// path and username; docker's server URL), run in the agent for a `helperGet` request on a store
/// whose every call is gated for the caller as its own request would be. coffer-agent gives the
/// helpers' own code (GitCredentialHelper, DockerCredentialHelper), so that the answer is the one
/// the helper would have made itself.
package protocol CredentialHelperRules: Sendable {
    /// The helper's whole answer (what it writes on stdout) to `input` (what it read on stdin).
    /// Throws ``CofferError`` for what the store refused; any other error means the request is
    /// one the helper itself must answer and report (a malformed request, say).
    func get(_ helper: CredentialHelperKind, input: [UInt8], store: any CredentialStore) throws -> [UInt8]
}
