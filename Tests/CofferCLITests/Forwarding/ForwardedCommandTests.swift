import CofferCommandLine
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

    /// Every root option that takes a value is known to the scan that finds the subcommand (it
    /// parses them with coffer's own parser): each, from the parser's own list
    /// (`--experimental-dump-help`), works before a forwarded command.
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

    /// One table (``ForwardedCommands``) names every forwarded command: `coffer --help` lists
    /// each with the table's abstract, and the executable that runs it declares the same.
    func testOneTableDrivesTheStubsAndTheExecutables() throws {
        let help = try coffer(["--help"]).stdoutText
        for command in ForwardedCommands.all {
            XCTAssertTrue(help.contains("  \(command.name) "), "coffer --help lists \(command.name)")
            let own = try coffer([command.name, "--help"]).stdoutText
            XCTAssertTrue(own.hasPrefix("OVERVIEW: \(command.abstract.prefix(40))"), "\(command.name): \(own.prefix(200))")
        }
    }

    /// A forwarded executable gets the subcommand and the arguments after it, never the root
    /// options before it: those travel in the environment, as git passes its global options.
    /// A stand-in coffer-auth beside a copy of coffer records both.
    func testRootOptionsTravelInTheEnvironmentNotOnTheCommandLine() throws {
        let alone = folder.file("alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: BuiltProducts.executable("coffer"), to: alone.appendingPathComponent("coffer"))
        try FileManager.default.copyItem(at: BuiltProducts.executable("libCofferCommands.so"), to: alone.appendingPathComponent("libCofferCommands.so"))
        let record = folder.file("record").path
        let standIn = """
            #!/bin/sh
            for word in "$@"; do printf '%s\n' "$word"; done > '\(record).argv'
            env | grep '^COFFER_' | sort > '\(record).env'

            """
        try Data(standIn.utf8).write(to: alone.appendingPathComponent("coffer-auth"))
        chmod(alone.appendingPathComponent("coffer-auth").path, 0o755)
        let run = try ChildProcess.run(
            alone.appendingPathComponent("coffer"),
            ["--vault", "/v.vault", "--keyfile=/k.key", "--passphrase-fd", "0", "--backend", "vault", "--unlock", "keyfile",
             "--no-agent", "--secret-service-timeout", "2.5", "--insecure-http", "login", "--issuer", "https://id.example"],
            environment: ["COFFER_VAULT": nil, "COFFER_KEYFILE": nil])
        XCTAssertEqual(run.status, 0, run.stderrText)
        XCTAssertEqual(try String(contentsOfFile: record + ".argv", encoding: .utf8), "login\n--issuer\nhttps://id.example\n")
        let environment = try String(contentsOfFile: record + ".env", encoding: .utf8)
        for variable in [
            "COFFER_VAULT=/v.vault", "COFFER_KEYFILE=/k.key", "COFFER_PASSPHRASE_FD=0", "COFFER_BACKEND=vault", "COFFER_UNLOCK=keyfile",
            "COFFER_NO_AGENT=1", "COFFER_SECRET_SERVICE_TIMEOUT=2.5", "COFFER_INSECURE_HTTP=1",
        ] {
            XCTAssertTrue(environment.contains(variable + "\n"), "\(variable) in \(environment)")
        }
        // A root option's value that happens to be a command's name is still a value.
        _ = try ChildProcess.run(alone.appendingPathComponent("coffer"), ["--vault", "login", "token"], environment: ["COFFER_VAULT": nil])
        XCTAssertEqual(try String(contentsOfFile: record + ".argv", encoding: .utf8), "token\n")
        XCTAssertTrue(try String(contentsOfFile: record + ".env", encoding: .utf8).contains("COFFER_VAULT=login\n"))
    }

    /// coffer-dev-backend gets `dev-backend` and what follows, like every forwarded executable,
    /// and still runs alone.
    func testTheDevBackendGetsItsSubcommand() throws {
        let forwarded = try coffer(["--vault", "/v.vault", "dev-backend", "--help"])
        XCTAssertEqual(forwarded.status, 0, "coffer-dev-backend has no --vault; it did not get one: \(forwarded.stderrText)")
        XCTAssertTrue(forwarded.stdoutText.contains("--oidc-auto-approve"), forwarded.stdoutText)
        let alone = try ChildProcess.run(BuiltProducts.executable("coffer-dev-backend"), ["--help"])
        XCTAssertTrue(alone.stdoutText.contains("--oidc-auto-approve"), alone.stdoutText)
    }

    func testACommandRunsWithItsArgumentsAndExitStatus() throws {
        try initVault()
        let status = try coffer(["status", "--json"])
        XCTAssertEqual(status.exitStatus, .loginNeeded, status.stderrText)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: status.stdout) as? [String: Any])
        let usage = try coffer(["login", "--no-such-option"])
        XCTAssertEqual(usage.exitStatus, .usage)
    }

    func testAMissingExecutableIsAClearError() throws {
        let alone = folder.file("alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: false)
        let copy = alone.appendingPathComponent("coffer")
        try FileManager.default.copyItem(at: BuiltProducts.executable("coffer"), to: copy)
        try FileManager.default.copyItem(at: BuiltProducts.executable("libCofferCommands.so"), to: alone.appendingPathComponent("libCofferCommands.so"))
        let run = try ChildProcess.run(copy, ["status"])
        XCTAssertEqual(run.exitStatus, .unavailable)
        XCTAssertEqual(run.stderrText, "coffer: cannot run \(alone.path)/coffer-auth: No such file or directory (it is installed beside coffer)\n")
    }

    /// A thin program without the full programs' library beside it says so (exit 69) and loads
    /// none from anywhere else.
    func testAMissingLibraryIsAClearError() throws {
        let alone = folder.file("alone")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: false)
        for program in ["coffer", "git-credential-coffer", "docker-credential-coffer"] {
            let copy = alone.appendingPathComponent(program)
            try FileManager.default.copyItem(at: BuiltProducts.executable(program), to: copy)
            let run = try ChildProcess.run(copy, ["--version"], environment: ["LD_LIBRARY_PATH": BuiltProducts.folder.path])
            XCTAssertEqual(run.exitStatus, .unavailable)
            XCTAssertEqual(
                run.stderrText,
                "\(program): cannot load \(alone.path)/libCofferCommands.so: cannot open shared object file: No such file or directory (it is installed beside \(program))\n")
        }
    }

    /// When coffer cannot read its own path (/proc/self/exe), it says so (exit 69) and runs
    /// nothing: before, it ran ./coffer-auth from the working folder, which could be anyone's.
    /// The link is made unreadable honestly: coffer runs from a folder deeper than PATH_MAX
    /// (4096 bytes), whose path the kernel cannot give, with a stand-in coffer-auth beside it.
    func testAnUnreadableOwnPathIsAClearErrorAndNothingRunsFromTheWorkingFolder() throws {
        let levels = (0..<18).map { String(repeating: "\($0 % 10)", count: 250) }
        let marker = folder.file("stand-in-ran").path
        let top = folder.file(levels[0]).path
        defer { _ = try? ChildProcess.run("/bin/rm", ["-rf", top]) }
        let script = """
            set -e
            cd "$ROOT" && mkdir -p "$UPPER" && cd -P "$UPPER" && mkdir -p "$LOWER" && cd -P "$LOWER"
            mkdir bin && { ln "$COFFER" bin/coffer 2>/dev/null || cp "$COFFER" bin/coffer; }
            printf '#!/bin/sh\ntouch "%s"\n' "$MARKER" > coffer-auth && chmod 755 coffer-auth
            exec bin/coffer status
            """
        let run = try ChildProcess.run("/bin/sh", ["-c", script], environment: [
            "ROOT": folder.url.path, "UPPER": levels[..<9].joined(separator: "/"), "LOWER": levels[9...].joined(separator: "/"),
            "COFFER": BuiltProducts.executable("coffer").path, "MARKER": marker,
        ])
        // A sanitizer's runtime adds its own "==PID==WARNING" line about the same path.
        let stderr = run.stderrText.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("==") }.joined(separator: "\n")
        XCTAssertEqual(stderr, """
            coffer: cannot find the folder coffer runs from (/proc/self/exe: File name too long), where libCofferCommands.so is

            """)
        XCTAssertEqual(run.exitStatus, .unavailable)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "the working folder's coffer-auth did not run")
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
