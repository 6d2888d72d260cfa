/// Why an access prompt's answer is no: what the audit log records.
package enum AccessDenial: String, Sendable, Equatable, CaseIterable {
    /// No prompter is set (`--prompter`), so no one could be asked.
    case noPrompter
    /// The prompter gave no answer within its time limit.
    case timedOut
    /// The prompter answered `deny`.
    case refused
    /// The prompter answered something other than `once`, `always` or `deny`, or nothing.
    case badAnswer
    /// The prompter could not be started, or ended with an exit status other than 0 or a signal.
    case failed
    /// The caller stopped waiting (its client left, or dismissed the prompt).
    case cancelled
}
