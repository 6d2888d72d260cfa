import Coffer
import FoundationEssentials

/// git-credential-coffer's `get` in one call, for the agent's `helperGet`: the request read
/// from the bytes the thin helper read as ``GitCredentialReader`` reads stdin, answered by
/// ``GitCredentialActions/get(_:)`` on `store`.
package enum GitCredentialGet {
    /// The answer's bytes, as the helper writes them. Throws what the helper reports itself.
    package static func answer(_ input: [UInt8], store: any CredentialStore) throws -> [UInt8] {
        let answer = try GitCredentialActions(store: store).get(try GitCredentialReader.read(input))
        return Array(answer)
    }
}
