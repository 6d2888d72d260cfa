import Glibc

extension ChildCommand {
    /// The most standard error a run keeps by default.
    package static let errorLimit = 16 * 1024

    /// Runs the program to its end, in a process group of its own unless ``processGroup`` says
    /// otherwise: `input` on its standard input; its standard output read straight into
    /// `output` (the caller's memory: secure memory for a secret), whatever does not fit read
    /// and dropped; its standard error as `errors` says, at most `errorLimit` bytes kept.
    ///
    /// When the child exits, anything of its group still running is killed (SIGKILL) and the
    /// output it had written is kept. At `deadline`, or on `cancellation`, the whole group is
    /// killed and the run fails. Nothing of the group outlives the call, and the child is reaped.
    package func run(
        input: ChildInput = .nullDevice, output: UnsafeMutableRawBufferPointer, errors: ChildErrorStream = .captured,
        errorLimit: Int = ChildCommand.errorLimit, until deadline: ContinuousClock.Instant, cancellation: ChildCancellation? = nil
    ) throws(ChildRunFailure) -> ChildRunOutcome {
        guard cancellation?.isCancelled != true else { throw .cancelled }
        var inputBytes: UnsafeRawBufferPointer?
        if case .bytes(let bytes) = input { inputBytes = bytes }
        let streams = try start(input: inputBytes != nil, errors: errors)
        defer { streams.close() }
        let child = streams.child
        var exchange = ChildExchange(
            child: child, input: streams.input.flatMap { end in inputBytes.map { (end, $0) } }, output: (streams.output, output),
            error: streams.error.map { ChildErrorCapture(descriptor: $0, limit: errorLimit) })
        defer { exchange.closeWatch() }
        let ending: ChildExchange.Ending = cancellation?.attach(child) == false ? .cancelled : exchange.run(until: deadline, cancellation: cancellation)
        // The leader is not reaped yet, so its group's id still names its group.
        child.signalGroup(SIGKILL)
        if case .leaderEnded = ending { exchange.drain() }
        cancellation?.detach()
        let termination = child.wait(until: nil) ?? .unknown
        switch ending {
        case .timedOut: throw .timedOut
        case .cancelled: throw .cancelled
        case .leaderEnded:
            return ChildRunOutcome(
                termination: termination, outputCount: exchange.received, outputOverflowed: exchange.outputOverflowed,
                errorText: String(decoding: exchange.errorBytes, as: UTF8.self))
        }
    }
}
