import Coffer
import CofferAgentWire

/// The rules by which a credential helper answers a `get` (git's matching of protocol, host,
/// path and username; docker's server URL), run in the agent for a `helperGet` request on a store
/// whose every call is gated for the caller as its own request would be. coffer-agent gives the
/// helpers' own code (GitCredentialHelper, DockerCredentialHelper), so that the answer is the one
/// the helper would have made itself.
package protocol CredentialHelperRules: Sendable {
    /// The helper's whole answer (what it writes on stdout) to `input` (what it read on stdin).
    /// Throws ``CofferError`` for what the store refused, ``CredentialHelperReport`` for a
    /// failure the thin helper reports as the full one would (docker's "not found"); any other
    /// error means the request is one the helper itself must answer and report (a malformed
    /// request, say).
    func get(_ helper: CredentialHelperKind, input: [UInt8], store: any CredentialStore) throws -> [UInt8]
}

/// A `get` that fails as the helper reports it, byte for byte: what it writes on stdout and its
/// exit status (not 0). The agent answers it (`helperGet`, the `exit status` field), and the thin
/// helper writes it and exits with it, loading no full program.
package struct CredentialHelperReport: Error, Sendable {
    package let output: [UInt8]
    package let exitStatus: UInt8

    package init(output: [UInt8], exitStatus: UInt8) {
        precondition(exitStatus != 0, "a report is a failure")
        self.output = output
        self.exitStatus = exitStatus
    }
}
