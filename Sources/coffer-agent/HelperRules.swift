import Coffer
import CofferAgent
import CofferAgentWire
import DockerCredentialHelper
import GitCredentialHelper

/// The credential helpers' own rules for the agent's `helperGet` (``CredentialHelperRules``).
struct HelperRules: CredentialHelperRules {
    func get(_ helper: CredentialHelperKind, input: [UInt8], store: any CredentialStore) throws -> [UInt8] {
        switch helper {
        case .git: try GitCredentialGet.answer(input, store: store)
        case .docker: try DockerCredentialGet.answer(input, store: store)
        }
    }
}
