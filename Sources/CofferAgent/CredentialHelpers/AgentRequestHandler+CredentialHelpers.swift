import Coffer
import CofferAgentWire
import CofferBase
import FoundationEssentials

extension AgentRequestHandler {
    /// A credential helper's `get` (`helperGet`), run by ``helperRules`` on a store whose calls
    /// are this handler's own answers for `program`, each through `gate` as its request would go:
    /// every read is decided and logged as before. `nil` when a read would ask the person and
    /// `asking` is `false`: the request is then run again where asking may wait. Anything the
    /// helper must report itself (no rules here, a malformed request) is a failure, and the thin
    /// helper hands the request to its full program.
    func answerHelperGet(
        _ helper: CredentialHelperKind, input: SecureBytes, vault path: String, by caller: Caller?, asking: Bool,
        cancellation: PrompterCommand.Run?, gate: AccessGate
    ) -> AgentReply? {
        guard let helperRules else { return .failure(.invalidArgument(reason: "this agent answers no credential helper's get")) }
        let mustAsk = Guarded(false)
        let store = AgentRequestStore(vault: path) { [self] request throws(CofferError) in
            guard let reply = answer(request, from: caller, asking: asking, cancellation: cancellation, gate: gate) else {
                mustAsk.withLock { $0 = true }
                throw .accessDenied(program: AccessGate.name(of: caller?.program))
            }
            return try reply.succeeded()
        }
        var bytes = input.withUnsafeBytes { Array($0) }
        defer { SecretMemory.zero(&bytes) }
        do {
            let output = try helperRules.get(helper, input: bytes, store: store)
            return .secret(Data(output))
        } catch let report as CredentialHelperReport {
            return .reported(Data(report.output), exitStatus: report.exitStatus)
        } catch {
            if mustAsk.withLock({ $0 }) { return nil }
            if case .locked? = error as? CofferError { return .notHeld }
            if let error = error as? CofferError { return .failure(error) }
            return .failure(.invalidArgument(reason: "the \(helper) helper answers this request itself"))
        }
    }
}
