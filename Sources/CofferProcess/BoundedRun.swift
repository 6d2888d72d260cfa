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
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { (parentEnds + childEnds).forEach { close($0) } }
        func connect() throws(ChildRunFailure) -> (parent: Int32, child: Int32) {
            do throws(ChildSpawnFailure) {
                let pair = try DescriptorPair.socketPair()
                parentEnds.append(pair.parent)
                childEnds.append(pair.child)
                return pair
            } catch {
                throw .spawn(error)
            }
        }
        var inputChannel: (descriptor: Int32, bytes: UnsafeRawBufferPointer)?
        var descriptors: [Int32: ChildDescriptor] = [0: .nullDevice, 2: .nullDevice]
        if case .bytes(let bytes) = input {
            let pair = try connect()
            inputChannel = (pair.parent, bytes)
            descriptors[0] = .copy(pair.child)
        }
        let outputPair = try connect()
        descriptors[1] = .copy(outputPair.child)
        var errorEnd: Int32?
        switch errors {
        case .captured:
            let pair = try connect()
            errorEnd = pair.parent
            descriptors[2] = .copy(pair.child)
        case .inherited where fcntl(2, F_GETFD) >= 0:
            descriptors[2] = .copy(2)
        case .inherited, .nullDevice:
            break
        }

        let child: SpawnedChild
        do throws(ChildSpawnFailure) {
            child = try spawn(descriptors: descriptors)
        } catch {
            throw .spawn(error)
        }
        childEnds.forEach { close($0) }
        childEnds = []
        var exchange = ChildExchange(
            child: child, input: inputChannel, output: (outputPair.parent, output), error: errorEnd,
            errorLimit: errorLimit)
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
