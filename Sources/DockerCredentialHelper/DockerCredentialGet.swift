import Coffer

/// docker-credential-coffer's `get` in one call, for the agent's `helperGet`: the server URL
/// read from the bytes the thin helper read on stdin, answered by
/// ``DockerCredentialActions/get(_:)`` on `store`.
package enum DockerCredentialGet {
    /// The answer's bytes, as the helper writes them. Throws what the helper reports itself
    /// (``DockerHelperError/notFound`` among them).
    package static func answer(_ input: [UInt8], store: any CredentialStore) throws -> [UInt8] {
        try DockerCredentialActions(store: store).get(try DockerCredentials.serverURL(from: input)).json
    }
}
