import CofferBase
import Glibc

/// How a thin front program runs (docs/performance.md, "The thin front programs"): it answers
/// the common requests the agent serves itself, with neither Foundation nor glib, gio,
/// libsecret or libgcrypt loaded, and hands every other invocation, and every request the agent
/// does not answer with success, to the full program (``FullProgram``) in the same process.
package enum ThinProgram {
    /// Runs `fastPath` on the command line's arguments (without the program's name) when they
    /// are all UTF-8 and the standard streams were open (a closed one is held on /dev/null, and the full
    /// program reports it); it returns the exit status of a request
    /// it answered, or `nil` to hand the invocation on. Then runs the full program `full`.
    package static func run(full: FullProgram, fastPath: ([String]) -> Int32?) -> Never {
        name = full.name
        let closed = StandardDescriptors.holdClosed()
        if closed.isEmpty, let arguments = utf8Arguments() {
            ProcessHardening.preventCrashOutput()
            if let status = fastPath(Array(arguments.dropFirst())) { exit(status) }
            ThinAgent.closeAll()
        }
        full.run(closedStandardStreams: closed)
    }

    /// The arguments, or `nil` when one is not UTF-8 (the full program refuses it).
    private static func utf8Arguments() -> [String]? {
        var arguments: [String] = []
        for index in 0..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[index], let argument = String(validatingCString: pointer) else { return nil }
            arguments.append(argument)
        }
        return arguments
    }

    /// The environment variable `name`, or `nil`.
    package static func environment(_ name: String) -> String? {
        getenv(name).flatMap { String(validatingCString: $0) }
    }

    /// The name the thin program's own messages start with (`coffer: …`).
    nonisolated(unsafe) package static var name = "coffer"

    /// Writes all of `bytes` to stdout; on failure prints why and ends the process with status
    /// 74 (`ExitStatus.outputFailed`), as the full program does.
    package static func writeOutput(_ bytes: [UInt8]) {
        guard writeAll(bytes, to: STDOUT_FILENO) else {
            fail("cannot write the output: \(String(cString: strerror(errno)))", status: outputFailedStatus)
        }
    }

    /// Writes all of `bytes` to `descriptor`; `false` (with `errno`) when it cannot.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Prints `message` after the program's name on stderr and ends the process with `status`.
    package static func fail(_ message: String, status: Int32) -> Never {
        let line = Array("\(name): \(message)\n".utf8)
        _ = line.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress!, line.count) }
        exit(status)
    }

    /// `ExitStatus.outputFailed` (checked equal by the tests).
    package static let outputFailedStatus: Int32 = 74
}
