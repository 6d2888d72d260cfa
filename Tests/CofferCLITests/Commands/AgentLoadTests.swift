import CofferAgent
import Coffer
import CofferAgentWire
import CofferTestSupport
import Foundation
import XCTest

/// The real agent under load from its own user: a thousand idle connections neither crash it nor
/// hold up a `get`, and it raises its own open-file limit when it starts.
final class AgentLoadTests: CLITestCase {
    /// 1,100 connections that send nothing, opened to an agent started with a soft limit of 1024
    /// open files (a common default): the agent stays up, still holds its vault, and serves a
    /// `get` with no credential at once (no fallback, which would need a passphrase). The idle
    /// connections gave way: the cap (256) closed the oldest for the newer. Before, about 1,030
    /// connections crashed the agent, and six idle ones stalled it.
    func testElevenHundredIdleConnectionsNeitherCrashTheAgentNorHoldUpAGet() throws {
        try raiseOwnOpenFileLimit(to: 1_400)
        try initVaultWithItem()
        try startAgent(openFileLimit: 1024)
        XCTAssertEqual(try coffer(["unlock"]).status, 0)

        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<1_100 { idle.append(try AgentSocket.connect(path: agentSocket.path)) }

        let get = try coffer(["get", "mail", "ada"], environment: ["COFFER_PASSPHRASE": nil])
        XCTAssertEqual(get.status, 0, get.stderrText)
        XCTAssertEqual(get.stdoutText, "first")
        XCTAssertEqual(get.stderrText, "", "served through the agent, with no note of a fallback")
        XCTAssertLessThan(get.duration, .milliseconds(TestTiming.limit(milliseconds: 1_000)), "a bound, not a benchmark")

        let closed = idle.filter { descriptor in
            var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            return poll(&polled, 1, 0) > 0
        }
        XCTAssertGreaterThanOrEqual(closed.count, 1_100 - 256, "the oldest idle connections made room")
        let status = try JSONSerialization.jsonObject(with: try coffer(["agent", "status", "--json"]).stdout) as? [String: Any]
        XCTAssertEqual(status?["running"] as? Bool, true)
        XCTAssertEqual((status?["vaults"] as? [Any])?.count, 1, "the agent kept the vault it holds")
    }

    /// The agent raises its soft limit on open files to the hard limit when it starts.
    func testTheAgentRaisesItsOpenFileLimit() throws {
        try startAgent(openFileLimit: 256)
        let pid = try XCTUnwrap(agent?.pid)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try XCTUnwrap(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let values = line.dropFirst("Max open files".count).split(separator: " ")
        XCTAssertGreaterThanOrEqual(values.count, 2, String(line))
        XCTAssertEqual(values[0], values[1], "soft limit raised to the hard one: \(line)")
        XCTAssertNotEqual(values[0], "256")
    }

    /// This test process needs more descriptors than a default soft limit of 1024.
    private func raiseOwnOpenFileLimit(to needed: Int) throws {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { throw MissingPrerequisite.error("getrlimit failed") }
        guard limit.rlim_cur < needed else { return }
        var raised = rlimit(rlim_cur: rlim_t(max(needed, Int(limit.rlim_cur))), rlim_max: max(limit.rlim_max, rlim_t(needed)))
        guard setrlimit(resource, &raised) == 0 else {
            throw MissingPrerequisite.error("this test needs \(needed) open files, and the hard limit is \(limit.rlim_max)")
        }
    }
}
