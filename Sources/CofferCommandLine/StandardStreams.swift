import CofferThinClient
import FoundationEssentials
import Glibc

/// Standard input, output and error, written and read with every failure checked.
///
/// A command's output never crashes the process: a closed, full or broken stdout gives one
/// line on stderr and ``ExitStatus/outputFailed``; a closed or broken stderr is ignored, so
/// the exit status still tells what happened. Under SIGPIPE's default disposition a broken
/// pipe ends the process by that signal, as for any Unix tool.
package enum StandardStreams {
    /// Which of 0, 1 and 2 were closed when the process started. They are then opened on
    /// /dev/null, so no file this process opens later can take their numbers and receive
    /// its output; a command that must read stdin or write stdout still fails as it should.
    nonisolated(unsafe) private(set) static var closedAtStart: Set<Int32> = []

    /// Run first thing in `main`.
    package static func prepare() {
        closedAtStart.formUnion(StandardDescriptors.holdClosed())
    }

    /// Records descriptors that the thin program found closed (and held on /dev/null) before it
    /// loaded the full program (``LibraryEntryPoint``).
    package static func recordClosedAtStart(_ closed: Set<Int32>) {
        closedAtStart.formUnion(closed)
    }

    /// Writes all of `bytes` to stdout.
    package static func write(_ bytes: some Collection<UInt8>) throws(CLIError) {
        let written = Array(bytes).withUnsafeBytes { raw in Result { () throws(CLIError) in try write(unsafeBytes: raw) } }
        try written.get()
    }

    /// Writes all of `bytes` to stdout straight from where they are (a secret's guarded
    /// memory: no copy is made).
    package static func write(unsafeBytes bytes: UnsafeRawBufferPointer) throws(CLIError) {
        guard !closedAtStart.contains(STDOUT_FILENO) else {
            throw CLIError(message: "cannot write the output: standard output is closed", exitStatus: .outputFailed)
        }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw CLIError(message: "cannot write the output: \(describeErrno())", exitStatus: .outputFailed)
            }
            offset += written
        }
    }

    /// Writes `text` and a newline to stdout.
    package static func printLine(_ text: String) throws(CLIError) {
        try write(Array((text + "\n").utf8))
    }

    /// Writes `text` to stderr, best effort: a closed or broken stderr is not an error.
    package static func writeError(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    private static func describeErrno() -> String {
        String(cString: strerror(errno))
    }
}
