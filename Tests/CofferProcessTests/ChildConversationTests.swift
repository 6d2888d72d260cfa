import CofferProcess
import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// ``ChildConversation``, the turn-by-turn run (pinentry's Assuan), against `/bin/sh`: each
/// turn's answer comes before the next question is sent; one deadline bounds every turn, and a
/// cancel ends it; a child that stops reading or exits is reported, not waited for; ending
/// gives the exit status and standard error, and kills whatever is left of the child's group.
final class ChildConversationTests: XCTestCase {
    /// On the command line of the processes a test's scripts start in the background.
    private let marker = "coffer-child-conversation-test-\(UUID().uuidString)"

    override func tearDown() {
        for pid in ProcessTable.processes(withCommandLineContaining: marker) { kill(pid, SIGKILL) }
        super.tearDown()
    }

    private func start(_ script: String, within time: Duration = .seconds(20), cancellation: ChildCancellation? = nil) throws -> ChildConversation {
        try ChildConversation(
            ChildCommand(executable: "/bin/sh", arguments: ["-c", script], environment: ["PATH": ChildEnvironment.systemPath]),
            until: .now + time, cancellation: cancellation)
    }

    private func send(_ conversation: ChildConversation, _ text: String) throws {
        try Array(text.utf8).withUnsafeBytes { bytes in try conversation.send(bytes) }
    }

    /// What the child writes next, as text ("" when its output closed).
    private func receive(_ conversation: ChildConversation) throws -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = try buffer.withUnsafeMutableBytes { try conversation.receive(into: $0) }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// A line at a time: each answer is read before the next line is sent (the child could not
    /// have answered a line it had not been sent); its end gives its exit status and stderr.
    func testTurnsAlternate() throws {
        let conversation = try start("echo hello; while read line; do echo \"got $line\"; echo \"err $line\" >&2; done; exit 3")
        XCTAssertEqual(try receive(conversation), "hello\n")
        for turn in ["one", "two", "three"] {
            try send(conversation, turn + "\n")
            XCTAssertEqual(try receive(conversation), "got \(turn)\n")
        }
        let ending = conversation.end(within: .seconds(5))
        XCTAssertEqual(ending.termination, .exited(3), "its input closed, it left its loop")
        XCTAssertEqual(ending.errorText, "err one\nerr two\nerr three\n")
    }

    /// A child that never answers: the turn fails at the deadline, not later, and ending kills
    /// it with everything it started.
    func testTheDeadlineEndsATurn() throws {
        let started = ContinuousClock.now
        let conversation = try start("sh -c 'sleep 300; : \(marker)' & sleep 300", within: .seconds(1))
        XCTAssertThrowsError(try receive(conversation)) { XCTAssertEqual($0 as? ChildConversationFailure, .timedOut) }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        XCTAssertEqual(conversation.end(within: .seconds(5)).termination, .signalled(SIGKILL))
        XCTAssertEqual(ProcessTable.waitUntilGone(commandLineContaining: marker, timeout: .seconds(2)), [], "its group was killed")
    }

    /// A cancel from another thread ends a turn under way, and the child.
    func testACancelEndsATurn() throws {
        let cancellation = ChildCancellation()
        let conversation = try start("sleep 300", cancellation: cancellation)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { cancellation.cancel() }
        XCTAssertThrowsError(try receive(conversation)) { XCTAssertEqual($0 as? ChildConversationFailure, .cancelled) }
        XCTAssertEqual(conversation.end(within: .seconds(5)).termination, .signalled(SIGKILL))
        XCTAssertThrowsError(try start("echo never", cancellation: cancellation)) { XCTAssertEqual($0 as? ChildRunFailure, .cancelled) }
    }

    /// A child that exits: its output reads as closed (0 bytes), and sending to it fails as
    /// input closed, with no SIGPIPE; a program that is not there does not start.
    func testAnEndedChildIsReportedNotWaitedFor() throws {
        let conversation = try start("echo bye; exit 0")
        XCTAssertEqual(try receive(conversation), "bye\n")
        XCTAssertEqual(try receive(conversation), "")
        let big = String(repeating: "x", count: 1 << 20)
        XCTAssertThrowsError(try send(conversation, big)) { XCTAssertEqual($0 as? ChildConversationFailure, .inputClosed) }
        XCTAssertEqual(conversation.end(within: .seconds(5)).termination, .exited(0))
        XCTAssertThrowsError(try ChildConversation(ChildCommand(executable: "/nonexistent", environment: [:]), until: .now + .seconds(5))) {
            guard case .spawn(.cannotRun(_, ENOENT))? = $0 as? ChildRunFailure else { return XCTFail("\($0)") }
        }
    }
}
