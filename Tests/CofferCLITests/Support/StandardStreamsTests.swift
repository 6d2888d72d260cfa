import CofferCommandLine
import CofferTestSupport
import Foundation
import XCTest

/// The CLI's output never crashes it: a closed, full or broken stdout is one line on stderr
/// and exit 74; a closed stderr leaves the exit status as it would be.
final class StandardStreamsTests: CLITestCase {
    override func setUpWithError() throws {
        try initVault()
        XCTAssertEqual(try coffer(["set", "S", "A"], stdin: Data("secret".utf8)).status, 0)
    }

    /// `get` and `list --json` with stdout closed (before: SIGILL from a `try!` in FileHandle).
    func testClosedStdoutIsExit74() throws {
        for command in [#""$COFFER" get S A >&-"#, #""$COFFER" list --json >&-"#, #""$COFFER" list >&-"#, #""$COFFER" doctor >&-"#] {
            assertFailure(try shell(command), status: .outputFailed, message: "cannot write the output: standard output is closed")
        }
    }

    /// A full device (/dev/full: every write fails with ENOSPC).
    func testFullStdoutIsExit74() throws {
        assertFailure(try shell(#""$COFFER" get S A >/dev/full"#), status: .outputFailed, message: "cannot write the output: No space left on device")
    }

    /// A pipe whose reader has gone, with SIGPIPE ignored: EPIPE is exit 74. Under SIGPIPE's
    /// default disposition the process ends by the signal, like any Unix tool.
    func testBrokenPipeIsExit74WhenSIGPIPEIsIgnored() throws {
        // The pipe's read end is closed before coffer starts, so its first write meets EPIPE.
        let script = """
            import os, signal, subprocess, sys
            read, write = os.pipe()
            os.close(read)
            for disposition in (signal.SIG_IGN, signal.SIG_DFL):
                signal.signal(signal.SIGPIPE, disposition)
                done = subprocess.run(sys.argv[1:], stdout=write, stderr=subprocess.PIPE, restore_signals=False)
                print(done.returncode, done.stderr.decode().strip())
            """
        let outcome = try shell(#"python3 -c "$SCRIPT" "$COFFER" list --json"#, environment: ["SCRIPT": script])
        XCTAssertEqual(outcome.stdoutText, "\(ExitStatus.outputFailed.rawValue) coffer: cannot write the output: Broken pipe\n-\(SIGPIPE) \n", outcome.stderrText)
    }

    /// With stderr closed, an error still gives its exit status (before: a crash).
    func testClosedStderrKeepsTheExitStatus() throws {
        XCTAssertEqual(try shell(#""$COFFER" get S missing 2>&-"#).exitStatus, .notFound)
        XCTAssertEqual(try shell(#""$COFFER" get S A 2>&-"#).stdoutText, "secret")
        XCTAssertEqual(try shell(#""$COFFER" get S A >&- 2>&-"#).exitStatus, .outputFailed)
    }

    /// With stdin closed, `set` refuses rather than storing an empty secret.
    func testClosedStdinIsRefused() throws {
        assertFailure(try shell(#""$COFFER" set S B <&-"#), status: .usage, message: "standard input is closed")
        assertFailure(try coffer(["get", "S", "B"]), status: .notFound, message: "item not found")
    }
}
