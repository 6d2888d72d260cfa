/// What a run that reached its end left.
package struct ChildRunOutcome: Sendable {
    package let termination: ChildTermination
    /// How many bytes of standard output are in the caller's buffer.
    package let outputCount: Int
    /// Whether the child wrote more than the buffer holds (the rest was read and dropped).
    package let outputOverflowed: Bool
    /// Standard error as text, up to the run's limit (``ChildErrorStream/captured`` only).
    package let errorText: String

    /// Exit status 0.
    package var succeeded: Bool { termination == .exited(0) }
}
