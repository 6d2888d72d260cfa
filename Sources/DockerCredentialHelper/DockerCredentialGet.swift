import Coffer
import CofferBase
import CofferCommandLine

/// docker-credential-coffer's `get` in one call, for the agent's `helperGet`: the server URL
/// read from the bytes the thin helper read on stdin, answered by
/// ``DockerCredentialActions/get(_:)`` on `store`.
package enum DockerCredentialGet {
    /// The answer's bytes, as the helper writes them. Throws what the helper reports itself
    /// (``DockerHelperError/notFound`` among them).
    package static func answer(_ input: [UInt8], store: any CredentialStore) throws -> [UInt8] {
        // The thin helper reads one byte past the limit, so that this input is refused as the full helper refuses it.
        guard input.count <= DescriptorInput.limit else { throw DockerHelperError.inputTooLarge }
        return try DockerCredentialActions(store: store).get(try DockerCredentials.serverURL(from: input)).json
    }

    /// What the helper writes on stdout and its exit status when ``answer(_:store:)`` threw
    /// `error` and the failure is docker's "not found", the one a `get` meets in normal use (a
    /// registry with no credentials): the line and status of
    /// ``DockerCredentialCommand/report(_:)``. `nil` for any other error.
    package static func reported(_ error: any Error) -> (output: [UInt8], exitStatus: UInt8)? {
        guard let failure = error as? DockerHelperError, failure == .notFound else { return nil }
        return (Array((TerminalText.escaped(failure.message) + "\n").utf8), UInt8(DockerCredentialCommand.errorStatus.rawValue))
    }
}
