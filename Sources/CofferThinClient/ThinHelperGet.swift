import CofferAgentWire
import CofferBase

/// A credential helper's `get` through the agent in one request (`helperGet`): the thin helper
/// reads the request on stdin and the agent answers it by the helper's own rules, for this
/// program, as the full helper's searches and reads would have been answered. Any other reply
/// hands the invocation on, with the input given back on stdin (``ThinInput``), to the full
/// program, which asks again and reports.
package enum ThinHelperGet {
    /// The exit status of a `get [--vault PATH]` answered here, or `nil` to hand it on.
    /// `inputLimit`: more than the full helper accepts, so that a request cut there is refused by
    /// it; `isComplete`: whether the bytes read hold the whole request (reading stops there).
    package static func answer(
        _ arguments: [String], helper: CredentialHelperKind, inputLimit: Int, until isComplete: ([UInt8]) -> Bool = { _ in false }
    ) -> Int32? {
        guard let command = ThinArguments(arguments, valued: ["vault"], flags: []), command.positionals == ["get"],
              let agent = ThinAgent.forVault(given: command.value("vault")),
              var input = ThinInput.read(limit: inputLimit, until: isComplete)
        else { return nil }
        let reply = agent.success(.helperGet, [
            ThinAgent.field(.helper, [helper.rawValue]), ThinAgent.field(.helperInput, input.bytes),
        ])
        // A failure the helper reports (docker's "not found") carries its exit status.
        let status = try? reply?.single(AgentReplyTag.exitStatus.rawValue)
        guard var output = try? reply?.single(AgentReplyTag.secret.rawValue), status.map({ $0.count == 1 && $0[0] != 0 }) ?? true else {
            input.giveBack()
            return nil
        }
        input.zero()
        ThinProgram.writeOutput(output)
        SecretMemory.zero(&output)
        return Int32(status?[0] ?? 0)
    }
}
