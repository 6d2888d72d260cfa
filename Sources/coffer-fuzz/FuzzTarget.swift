/// One parser under fuzzing: it takes any bytes, and a crash (a trap, a sanitizer report or a
/// broken invariant) is a finding. Inputs it refuses are fine.
struct FuzzTarget: Sendable {
    let name: String
    let run: @Sendable ([UInt8]) -> Void

    /// Every target, by name.
    static let all: [FuzzTarget] = [
        .itemRecord, .program, .auditEntry, .slotRow, .tokenReply, .ssoReply, .challengeRound, .registrationReply,
        .form, .wwwAuthenticate, .answersJSON, .agentRequest, .agentReply, .secretServiceInput, .assuanReply, .json, .gitRequest, .dockerStore,
    ]

    static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
