import Glibc

/// A started child and this process's ends of its standard streams: Unix stream sockets, all
/// close-on-exec (``DescriptorPair/socketPair()``).
struct ChildStreams {
    let child: SpawnedChild
    /// Writes to the child's standard input; `nil` when it reads `/dev/null`.
    let input: Int32?
    /// Reads the child's standard output.
    let output: Int32
    /// Reads the child's standard error; `nil` unless it is ``ChildErrorStream/captured``.
    let error: Int32?

    func close() {
        for descriptor in [input, output, error].compactMap({ $0 }) { Glibc.close(descriptor) }
    }
}

extension ChildCommand {
    /// Starts the program with descriptors 0, 1 and 2 only: its standard input a socket this
    /// process writes (with `input`) or `/dev/null`, its standard output a socket this process
    /// reads, and its standard error as `errors` says. The caller closes the streams and reaps
    /// the child.
    func start(input: Bool, errors: ChildErrorStream) throws(ChildRunFailure) -> ChildStreams {
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
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
        do throws(ChildRunFailure) {
            var descriptors: [Int32: ChildDescriptor] = [0: .nullDevice, 2: .nullDevice]
            var inputEnd: Int32?
            if input {
                let pair = try connect()
                inputEnd = pair.parent
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
            do throws(ChildSpawnFailure) {
                let child = try spawn(descriptors: descriptors)
                return ChildStreams(child: child, input: inputEnd, output: outputPair.parent, error: errorEnd)
            } catch {
                throw .spawn(error)
            }
        } catch {
            parentEnds.forEach { close($0) }
            throw error
        }
    }
}
