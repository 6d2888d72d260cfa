import CofferTestSupport
import Foundation
import XCTest

/// `coffer agent start --secret-service --upstream SOCKET` outside a sandbox, on a private bus:
/// what it refuses at start, that it opens no vault, that an item keeps its path across restarts,
/// and that an item removed upstream leaves the bus (docs/secret-service.md, "Inside a sandbox";
/// the sandbox itself: ShareSecretServiceInBubblewrapTests).
final class UpstreamSecretServiceTests: ShareTestCase {
    private func secretTool(_ bus: PrivateBus, _ arguments: [String]) throws -> ChildProcess.Output {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/secret-tool") else {
            throw MissingPrerequisite.error("secret-tool is missing (Debian: libsecret-tools)")
        }
        return try ChildProcess.run("/usr/bin/secret-tool", arguments, environment: bus.clientEnvironment, timeout: .seconds(30))
    }

    /// The upstream provider in the foreground on `bus`, with a vault path that does not exist
    /// in its environment; returns once it owns the name.
    private func startUpstream(on bus: PrivateBus) throws -> ChildProcess {
        let provider = try ChildProcess.start(BuiltProducts.executable("coffer").path, [
            "agent", "start", "--foreground", "--secret-service", "--upstream", shareSocket.path,
        ], environment: [
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "COFFER_VAULT": folder.file("no-such.vault").path, "COFFER_PASSPHRASE": nil,
            "COFFER_AGENT_SOCKET": folder.file("no-agent.sock").path,
        ])
        try awaitName(on: bus, by: provider)
        return provider
    }

    /// Waits until `process` owns the Secret Service's name on `bus`.
    private func awaitName(on bus: PrivateBus, by process: ChildProcess) throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while try !bus.hasOwner("org.freedesktop.secrets"), ContinuousClock.now < deadline, !process.hasEnded { usleep(20_000) }
        XCTAssertTrue(try bus.hasOwner("org.freedesktop.secrets"), process.stop()?.stderrText ?? "")
    }

    /// The last element of the item's path, as `secret-tool search` prints it (`[/ELEMENT]`).
    private func itemPath(_ bus: PrivateBus, service: String, username: String) throws -> String? {
        let found = try secretTool(bus, ["search", "service", service, "username", username])
        return found.stdoutText.split(separator: "\n").first { $0.hasPrefix("[/") }.map { String($0.dropFirst(2).dropLast()) }
    }

    /// `--upstream` needs `--secret-service`, and takes neither `--vault`, `--hold` nor
    /// `--prompter`: it opens no vault and asks nobody. A socket that is not there, or that is an
    /// agent's own socket rather than a share's, is refused at start with a clear message.
    func testUpstreamIsRefusedWhereItCannotServeAShare() throws {
        let alone = try coffer(["agent", "start", "--upstream", shareSocket.path])
        XCTAssertEqual(alone.exitStatus, .usage)
        XCTAssertTrue(alone.stderrText.contains("--upstream goes with --secret-service"), alone.stderrText)
        for extra in [["--hold", vault.path], ["--prompter", "/bin/false"]] {
            let refused = try coffer(["agent", "start", "--secret-service", "--upstream", shareSocket.path] + extra)
            XCTAssertEqual(refused.exitStatus, .usage, "\(extra): \(refused.stderrText)")
        }
        assertFailure(
            try coffer(["agent", "start", "--secret-service", "--upstream", shareSocket.path, "--vault", vault.path]), status: .usage,
            message: "--vault does not go with --upstream: the share's agent decides which vault is served")

        let missing = try coffer(["agent", "start", "--secret-service", "--upstream", shareSocket.path])
        XCTAssertEqual(missing.exitStatus, .unavailable, missing.stderrText)
        XCTAssertTrue(missing.stderrText.hasPrefix("coffer: --upstream \(shareSocket.path): "), missing.stderrText)

        try initVault()
        try startAgent()
        let own = try coffer(["agent", "start", "--secret-service", "--upstream", agentSocket.path, "--foreground"])
        XCTAssertEqual(own.exitStatus, .usage, own.stderrText)
        XCTAssertTrue(own.stderrText.contains("is an agent's own socket"), own.stderrText)
    }

    /// With no vault where it runs, the upstream provider serves the share's item to secret-tool
    /// at a path that is the same after a restart; an item removed upstream is gone from the bus
    /// at once, and the provider answers on.
    func testTheShareIsServedWithNoVaultAndStablePaths() throws {
        try prepareVaults()
        try share(["--service", "granted"])
        let bus = try PrivateBus()
        var provider = try startUpstream(on: bus)
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "granted", "username", "alice"]).stdoutText, "shared secret")
        XCTAssertNotEqual(try secretTool(bus, ["lookup", "service", "other", "username", "bob"]).status, 0)
        let path = try XCTUnwrap(try itemPath(bus, service: "granted", username: "alice"))
        XCTAssertEqual(path.count, 64, "a SHA-256 in hex: \(path)")

        XCTAssertEqual(provider.stop()?.status, 0, "SIGTERM ends it cleanly")
        XCTAssertFalse(try bus.hasOwner("org.freedesktop.secrets"))
        provider = try startUpstream(on: bus)
        defer { provider.stop() }
        XCTAssertEqual(try itemPath(bus, service: "granted", username: "alice"), path, "the same item, the same path")

        XCTAssertEqual(try coffer(["delete", "granted", "alice"]).status, 0)
        XCTAssertEqual(try secretTool(bus, ["lookup", "service", "granted", "username", "alice"]).status, 1, "removed upstream")
        XCTAssertNil(try itemPath(bus, service: "granted", username: "alice"))
        XCTAssertFalse(provider.hasEnded)
    }

    /// The same searches and lookups by secret-tool answer the same through a share as from the
    /// full provider on the vault itself (items, labels, secrets, attributes and schema; paths
    /// and dates aside): the share's items keep the full provider's mapping.
    func testTheSharesItemsLookAsTheFullProviderShowsThem() throws {
        try prepareVaults()
        try openAccessPolicy()
        let carol = try coffer(["set", "granted", "carol", "--label", "Carol's", "--attribute", "xdg:schema=org.example.Password",
                                "--attribute", "app=demo"], stdin: Data("carol's secret".utf8))
        XCTAssertEqual(carol.status, 0, carol.stderrText)
        try share(["--service", "granted"])

        let fullBus = try PrivateBus()
        let fullSocket = folder.file("full.sock").path
        let full = try ChildProcess.start(BuiltProducts.executable("coffer").path, ["agent", "start", "--foreground", "--secret-service"],
            environment: baseEnvironment.merging(["DBUS_SESSION_BUS_ADDRESS": fullBus.address, "COFFER_AGENT_SOCKET": fullSocket]) { $1 })
        defer { full.stop() }
        try awaitName(on: fullBus, by: full)
        XCTAssertEqual(try coffer(["unlock"], environment: ["COFFER_AGENT_SOCKET": fullSocket]).status, 0)
        let upstreamBus = try PrivateBus()
        let upstream = try startUpstream(on: upstreamBus)
        defer { upstream.stop() }

        func shown(_ bus: PrivateBus, _ arguments: [String]) throws -> String {
            let output = try secretTool(bus, arguments)
            return (output.stdoutText + output.stderrText).split(separator: "\n")
                .filter { !$0.hasPrefix("[/") && !$0.hasPrefix("created = ") && !$0.hasPrefix("modified = ") }.joined(separator: "\n")
        }
        for query in [["service", "granted"], ["service", "granted", "username", "carol"], ["app", "demo"],
                      ["xdg:schema", "org.example.Password"], ["username", "alice"]] {
            let expected = try shown(fullBus, ["search", "--all"] + query)
            XCTAssertTrue(expected.contains("secret = "), "the full provider finds \(query)")
            XCTAssertEqual(try shown(upstreamBus, ["search", "--all"] + query), expected, "\(query)")
            XCTAssertEqual(try shown(upstreamBus, ["lookup"] + query), try shown(fullBus, ["lookup"] + query), "\(query)")
        }
    }
}
