import CofferTestSupport
import Foundation
import XCTest

/// `coffer` hands the login commands to coffer-auth and `dev-backend` to coffer-dev-backend, with
/// the same arguments, and links no networking itself.
final class ForwardedCommandTests: CLITestCase {
    func testHelpComesFromTheExecutableThatRunsTheCommand() throws {
        for arguments in [["login", "--help"], ["help", "login"], ["--vault", "/v", "login", "--help"]] {
            let help = try coffer(arguments)
            XCTAssertEqual(help.status, 0, "\(arguments): \(help.stderrText)")
            XCTAssertTrue(help.stdoutText.contains("--issuer"), "\(arguments): \(help.stdoutText)")
        }
        for arguments in [["dev-backend", "--help"], ["help", "dev-backend"]] {
            let help = try coffer(arguments)
            XCTAssertTrue(help.stdoutText.contains("--oidc-auto-approve"), "\(arguments): \(help.stdoutText)")
        }
        XCTAssertTrue(try coffer(["--help"]).stdoutText.contains("  login "), "coffer's own help lists the forwarded commands")
    }

    /// Every root option that takes a value is known to the scan that finds the subcommand: the
    /// list comes from the parser itself (`--experimental-dump-help`).
    func testEveryRootOptionBeforeTheSubcommandIsPassedOn() throws {
        let dump = try XCTUnwrap(try JSONSerialization.jsonObject(with: try coffer(["--experimental-dump-help"]).stdout) as? [String: Any])
        let command = try XCTUnwrap(dump["command"] as? [String: Any])
        let options = (command["arguments"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "option" }
        let names = options.compactMap { ($0["preferredName"] as? [String: Any])?["name"] as? String }
        XCTAssertTrue(names.contains("vault"), "\(names)")
        for name in names {
            let value = name == "backend" ? "vault" : "1"
            let status = try coffer(["--\(name)", value, "status", "--help"])
            XCTAssertTrue(status.stdoutText.contains("--profile"), "--\(name) VALUE before status: \(status.stdoutText) \(status.stderrText)")
        }
        let flags = try coffer(["--no-agent", "--insecure-http", "status", "--help"])
        XCTAssertTrue(flags.stdoutText.contains("--profile"), flags.stderrText)
    }

    func testACommandRunsWithItsArgumentsAndExitStatus() throws {
        try initVault()
        let status = try coffer(["status", "--json"])
        XCTAssertEqual(status.status, 4, status.stderrText)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        let usage = try coffer(["login", "--no-such-option"])
        XCTAssertEqual(usage.status, 64)
    }

    func testAMissingExecutableIsAClearError() throws {
        let alone = folder.file("alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: false)
        let copy = alone.appendingPathComponent("coffer")
        try FileManager.default.copyItem(at: BuiltProducts.executable("coffer"), to: copy)
        let run = try ChildProcess.run(copy, ["status"])
        XCTAssertEqual(run.status, 69)
        XCTAssertEqual(run.stderrText, "coffer: cannot run \(alone.path)/coffer-auth: No such file or directory (it is installed beside coffer)\n")
    }

    /// The point of the split: coffer carries no SwiftNIO, Hummingbird, HTTP client or JWT code.
    func testCofferLinksNoNetworking() throws {
        let binary = try Data(contentsOf: BuiltProducts.executable("coffer"))
        for module in ["NIOPosix", "NIOCore", "Hummingbird", "AsyncHTTPClient", "JWTKit", "CofferAuth"] {
            XCTAssertNil(binary.range(of: Data(module.utf8)), "coffer contains \(module)")
        }
        XCTAssertNotNil(try Data(contentsOf: BuiltProducts.executable("coffer-auth")).range(of: Data("NIOPosix".utf8)), "the check can see a module")
    }

    func testVersion() throws {
        for executable in ["coffer", "coffer-auth", "coffer-dev-backend"] {
            let version = try ChildProcess.run(BuiltProducts.executable(executable), ["--version"])
            XCTAssertEqual(version.status, 0)
            XCTAssertNotNil(version.stdoutText.wholeMatch(of: /\d+\.\d+\.\d+\n/), "\(executable): \(version.stdoutText)")
        }
        XCTAssertEqual(try coffer(["--version"]).stdoutText, try ChildProcess.run(BuiltProducts.executable("coffer-auth"), ["--version"]).stdoutText)
    }
}
