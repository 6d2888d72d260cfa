import Coffer
import CofferAgent
import CofferAgentWire
import DockerCredentialHelper
import GitCredentialHelper

/// The credential helpers' own rules for the agent's `helperGet` (``CredentialHelperRules``).
struct HelperRules: CredentialHelperRules {
    func get(_ helper: CredentialHelperKind, input: [UInt8], store: any CredentialStore) throws -> [UInt8] {
        switch helper {
        case .git:
            return try GitCredentialGet.answer(input, store: store)
        case .docker:
            do {
                return try DockerCredentialGet.answer(input, store: store)
            } catch {
                guard let report = DockerCredentialGet.reported(error) else { throw error }
                throw CredentialHelperReport(output: report.output, exitStatus: report.exitStatus)
            }
        }
    }
}
