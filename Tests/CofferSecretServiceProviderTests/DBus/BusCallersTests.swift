import CofferAgent
import Coffer
import CofferTestSupport
import Foundation
import Glibc
import XCTest
@testable import CofferSecretServiceProvider

/// The caller behind a unique name, from the bus's own record of the connection
/// (`GetConnectionCredentials`, dbus-daemon 1.14 on a private bus), for a real client
/// (Python with jeepney: Fixtures/bus_peer.py).
final class BusCallersTests: XCTestCase {
    let folder = TemporaryFolder()
    let script = ProviderFixture.fixtures.appendingPathComponent("bus_peer.py").path

    /// A client on a bus of its own, and the provider's side of that bus.
    struct Client {
        let bus: PrivateBus
        let connection: BusConnection
        let callers: BusCallers
        let process: ChildProcess
        let name: String
        /// Written to, the client forks and the process that connected ends.
        let go: String
        /// Written to, the child that keeps the connection ends.
        let hold: String

        /// Makes the process that connected fork and end; its child keeps the connection.
        func handOver() throws {
            try "go\n".write(toFile: go, atomically: false, encoding: .utf8)
            _ = try process.wait(timeout: .seconds(10))
        }

        func stop() {
            process.stop()
            let descriptor = open(hold, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
            connection.close()
        }
    }

    func startClient() throws -> Client {
        let bus = try PrivateBus()
        let connection = try BusConnection(address: bus.address)
        let go = folder.file("go").path, hold = folder.file("hold").path
        XCTAssertEqual(mkfifo(go, 0o600), 0)
        XCTAssertEqual(mkfifo(hold, 0o600), 0)
        let process = try ChildProcess.start("/usr/bin/python3", [script, go, hold], environment: bus.clientEnvironment, inputs: [0: nil])
        do {
            let name = try process.lines(1, timeout: .milliseconds(TestTiming.limit(milliseconds: 20_000)))[0]
            return Client(bus: bus, connection: connection, callers: BusCallers(bus: connection), process: process, name: name, go: go, hold: hold)
        } catch ChildProcessError.endedEarly(let stderr) where stderr.contains("ModuleNotFoundError") {
            throw MissingPrerequisite.error("python3-jeepney is needed (scripts/bootstrap.sh test)")
        }
    }

    /// A client is its interpreter and script, as a peer of the agent's socket is; once the
    /// process that connected has ended, its name has no caller, even while a child keeps its
    /// connection and a new process has been given the first one's PID.
    func testAClientIsItsProgramUntilTheProcessThatConnectedEnds() throws {
        let client = try startClient()
        defer { client.stop() }
        let callers = client.callers
        let caller = try XCTUnwrap(callers.caller(of: client.name), String(describing: callers.failure(of: client.name)))
        XCTAssertEqual(caller.pid, client.process.pid)
        XCTAssertEqual(caller.uid, getuid())
        XCTAssertEqual(caller.program.executablePath, "/usr/bin/python3".realPathBytes)
        XCTAssertEqual(caller.program.script, script.realPathBytes)
        XCTAssertTrue(callers.caller(of: client.name) === caller, "kept for the name")

        try client.handOver()
        let reused = try ForcedPID.start("/bin/sh", ["-c", "echo ready; read line"], pid: client.process.pid, awaiting: "ready")
        defer { reused.stop() }
        XCTAssertNil(callers.caller(of: client.name), "the new process at the PID is not taken for the client")
        XCTAssertEqual(callers.failure(of: client.name), .ended)
    }

    /// A name whose connecting process had ended (its PID free) before the name first called
    /// gets no caller; nor does a name the bus does not know.
    func testANameWhoseProcessHasEndedOrThatIsUnknownHasNoCaller() throws {
        let client = try startClient()
        defer { client.stop() }
        try client.handOver()
        XCTAssertNil(client.callers.caller(of: client.name))
        XCTAssertEqual(client.callers.failure(of: client.name), .ended)
        XCTAssertNil(client.callers.caller(of: ":1.99999"))
        guard case .noPeerProcess = client.callers.failure(of: ":1.99999") else {
            return XCTFail(String(describing: client.callers.failure(of: ":1.99999")))
        }
    }
}
