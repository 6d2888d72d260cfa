import CofferAgentWire
import CofferCommandLine
import CofferTestSupport
import CofferThinClient
import Foundation
import XCTest

/// The thin front programs (issue 29): `coffer`, git-credential-coffer and docker-credential-coffer
/// link none of Foundation, glib, gobject, gio, libsecret and libgcrypt; what the agent answers
/// runs without loading them; everything else runs the full program from libCofferCommands.so in
/// the same process, with the same output and exit statuses as before.
final class ThinFrontTests: CLITestCase {
    static let thinPrograms = ["coffer", "git-credential-coffer", "docker-credential-coffer"]

    /// The executables' dynamic section names none of the heavy libraries (nor the full
    /// programs' library), nor Dispatch, and they import no Foundation, GLib, libsecret or
    /// libgcrypt symbol: `readelf -d` and `nm -D --undefined-only` on the built files.
    func testTheThinProgramsLinkNoneOfTheHeavyLibraries() throws {
        for program in Self.thinPrograms {
            let path = BuiltProducts.executable(program).path
            let dynamic = try ChildProcess.run("/usr/bin/readelf", ["-d", path])
            XCTAssertEqual(dynamic.status, 0, dynamic.stderrText)
            let needed = dynamic.stdoutText.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            XCTAssertFalse(needed.isEmpty, "\(program) is dynamically linked: \(dynamic.stdoutText)")
            let heavy = needed.compactMap { line in line.split(separator: "[").last.map { String($0.dropLast()) } }.filter(LoadedLibraries.isHeavy)
            XCTAssertEqual(heavy, [], "\(program) links \(heavy)")
            // Each library named costs start-up time; Dispatch is the full programs' (docs/performance.md).
            // A sanitizer's build links Dispatch into every program itself (`make sanitize`).
            let dispatch = needed.filter { $0.contains("libswiftDispatch") || $0.contains("[libdispatch") || $0.contains("libBlocksRuntime") }
            if ProcessInfo.processInfo.environment["COFFER_SANITIZER"] == nil {
                XCTAssertEqual(dispatch, [], "\(program) links Dispatch")
            }

            let symbols = try ChildProcess.run("/usr/bin/nm", ["-D", "--undefined-only", path])
            XCTAssertEqual(symbols.status, 0, symbols.stderrText)
            let imported = symbols.stdoutText.split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) }
            XCTAssertFalse(imported.isEmpty)
            let foreign = imported.filter {
                $0.contains("10Foundation") || $0.contains("18FoundationEssentials") || $0.hasPrefix("g_") || $0.hasPrefix("secret_") || $0.hasPrefix("gcry_")
            }
            XCTAssertEqual(foreign, [], "\(program) imports \(foreign)")
        }
    }

    /// The full programs' library links FoundationEssentials and none of Foundation's other parts
    /// (Foundation, FoundationInternationalization, ICU): `readelf -d` on the built file.
    func testTheFullProgramsLibraryLinksNoICU() throws {
        let library = BuiltProducts.executable("coffer").deletingLastPathComponent().appendingPathComponent(FullProgram.libraryName).path
        let dynamic = try ChildProcess.run("/usr/bin/readelf", ["-d", library])
        XCTAssertEqual(dynamic.status, 0, dynamic.stderrText)
        let needed = dynamic.stdoutText.split(separator: "\n").filter { $0.contains("(NEEDED)") }
            .compactMap { line in line.split(separator: "[").last.map { String($0.dropLast()) } }
        XCTAssertTrue(needed.contains("libFoundationEssentials.so"), "\(needed)")
        XCTAssertEqual(needed.filter(Self.isFoundationBeyondEssentials), [], "\(library) links \(needed)")
    }

    private static func isFoundationBeyondEssentials(_ name: String) -> Bool {
        ["libFoundation.so", "libFoundationInternationalization", "lib_FoundationICU", "libFoundationNetworking", "libFoundationXML"].contains { name.hasPrefix($0) }
    }

    /// Through the agent, `coffer get` and `coffer delete` initialise none of the heavy libraries
    /// (the loader's own report, `LD_DEBUG=libs`), and answer as the full program does: the
    /// secret exactly, then the item gone.
    func testGetAndDeleteThroughTheAgentLoadNoneOfThem() throws {
        try initVaultWithItem()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock", "--for", "60"]).status, 0)

        let get = try coffer(["get", "mail", "ada"], environment: LoadedLibraries.tracing)
        XCTAssertEqual(get.status, 0, LoadedLibraries.stderrWithoutTracing(get))
        XCTAssertEqual(get.stdoutText, "first")
        XCTAssertFalse(LoadedLibraries.names(in: get).isEmpty, "the loader reported")
        XCTAssertEqual(LoadedLibraries.heavy(in: get), [])

        let viaVaultOption = try coffer(["--vault", vault.path, "get", "--internet", "mail", "ada"], environment: LoadedLibraries.tracing)
        XCTAssertEqual(viaVaultOption.exitStatus, .notFound, "an internet password of that name is another item")
        XCTAssertEqual(LoadedLibraries.stderrWithoutTracing(viaVaultOption), "coffer: item not found\n")

        let delete = try coffer(["delete", "mail", "ada"], environment: LoadedLibraries.tracing)
        XCTAssertEqual(delete.status, 0, LoadedLibraries.stderrWithoutTracing(delete))
        XCTAssertEqual(delete.stdoutText, "")
        XCTAssertEqual(LoadedLibraries.heavy(in: delete), [])
        assertFailure(try coffer(["get", "mail", "ada"]), status: .notFound, message: "item not found")
        assertFailure(try coffer(["delete", "mail", "ada"]), status: .notFound, message: "item not found")
    }

    /// Through the agent, `coffer set` (stdin not a terminal) and `coffer list` initialise none
    /// of the heavy libraries, and do what the full program does opening the vault itself: the
    /// bytes on stdin stored exactly, over an item or as a new one; the same listing, byte for
    /// byte (escapes, labels, `--service`, none found).
    func testSetAndListThroughTheAgentLoadNoneOfThemAndMatchTheFullProgram() throws {
        try initVaultWithItem()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock", "--for", "60"]).status, 0)
        let labelled = try coffer(["set", "--label", "Work \u{1b}[31m\\", "mail", "bob"], stdin: Data("b".utf8))
        XCTAssertEqual(labelled.status, 0, labelled.stderrText)

        let secret = Data("two\nlines\u{0}\n".utf8)
        for (service, account) in [("mail", "ada"), ("café\tline", "new")] {
            let set = try coffer(["set", service, account], stdin: secret, environment: LoadedLibraries.tracing)
            XCTAssertEqual(set.status, 0, LoadedLibraries.stderrWithoutTracing(set))
            XCTAssertEqual(set.stdoutText, "")
            XCTAssertFalse(LoadedLibraries.names(in: set).isEmpty, "the loader reported")
            XCTAssertEqual(LoadedLibraries.heavy(in: set), [])
            let read = try coffer(["get", service, account], environment: ["COFFER_NO_AGENT": "1"])
            XCTAssertEqual(read.stdout, secret, "the full program reading the vault finds the bytes exactly")
        }

        for arguments in [["list"], ["list", "--service", "mail"], ["--vault", vault.path, "list", "--service=none"]] {
            let thin = try coffer(arguments, environment: LoadedLibraries.tracing)
            XCTAssertEqual(thin.status, 0, LoadedLibraries.stderrWithoutTracing(thin))
            XCTAssertEqual(LoadedLibraries.heavy(in: thin), [], "\(arguments)")
            let full = try coffer(arguments, environment: ["COFFER_NO_AGENT": "1"])
            XCTAssertEqual(full.status, 0, full.stderrText)
            XCTAssertEqual(thin.stdoutText, full.stdoutText, "\(arguments)")
            XCTAssertEqual(LoadedLibraries.stderrWithoutTracing(thin), full.stderrText)
        }
        XCTAssertEqual(try coffer(["list"]).stdoutText.split(separator: "\n").count, 3)
    }

    /// With the agent running but the vault locked, `set` and `list` go to the full program,
    /// which opens the vault itself: the same stdin stored, the same listing.
    func testSetAndListWithTheVaultLockedRunTheFullProgram() throws {
        try initVaultWithItem()
        try startAgent()
        let set = try coffer(["set", "mail", "locked"], stdin: Data("l\n".utf8), environment: LoadedLibraries.tracing)
        XCTAssertEqual(set.status, 0, LoadedLibraries.stderrWithoutTracing(set))
        XCTAssertTrue(LoadedLibraries.heavy(in: set).contains("libCofferCommands.so"))
        XCTAssertEqual(try coffer(["get", "mail", "locked"], environment: ["COFFER_NO_AGENT": "1"]).stdout, Data("l\n".utf8))
        let list = try coffer(["list"], environment: LoadedLibraries.tracing)
        XCTAssertEqual(list.status, 0, LoadedLibraries.stderrWithoutTracing(list))
        XCTAssertTrue(LoadedLibraries.heavy(in: list).contains("libCofferCommands.so"))
        XCTAssertEqual(list.stdoutText, try coffer(["list"], environment: ["COFFER_NO_AGENT": "1"]).stdoutText)
    }

    /// A `set` the agent does not take hands the same stdin to the full program, which reports
    /// as it does on its own: a secret over the vault's limit (refused by the agent) or over what
    /// the thin program reads at all.
    func testASetTheAgentRefusesIsReportedByTheFullProgramWithTheSameStdin() throws {
        try initVaultWithItem()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock", "--for", "60"]).status, 0)
        for size in [(1 << 20) + 1, AgentMessage.maxBodyBytes / 2 + 1] {
            let big = Data(repeating: 0x61, count: size)
            let thin = try coffer(["set", "mail", "big"], stdin: big, environment: LoadedLibraries.tracing)
            let full = try coffer(["set", "mail", "big"], stdin: big, environment: ["COFFER_NO_AGENT": "1"])
            XCTAssertEqual(thin.exitStatus, full.exitStatus, LoadedLibraries.stderrWithoutTracing(thin))
            XCTAssertNotEqual(full.status, 0)
            XCTAssertEqual(LoadedLibraries.stderrWithoutTracing(thin), full.stderrText)
        }
        let flagged = try coffer(["set", "--comment", "kept", "mail", "eve"], stdin: Data("e".utf8), environment: LoadedLibraries.tracing)
        XCTAssertEqual(flagged.status, 0, LoadedLibraries.stderrWithoutTracing(flagged))
        XCTAssertTrue(LoadedLibraries.heavy(in: flagged).contains("libCofferCommands.so"), "an option the thin reading does not know")
        XCTAssertEqual(try coffer(["get", "mail", "eve"]).stdoutText, "e")
    }

    /// What the thin `coffer` does not answer runs the full program in the same process: with
    /// no agent, `coffer get` loads libCofferCommands.so and Foundation (the positive control of
    /// the test above) and opens the vault itself; an option the thin reading does not know
    /// (`--json`) goes there too, through the agent.
    func testEverythingElseRunsTheFullProgramInTheSameProcess() throws {
        try initVaultWithItem()
        let alone = try coffer(["get", "mail", "ada"], environment: LoadedLibraries.tracing)
        XCTAssertEqual(alone.status, 0, LoadedLibraries.stderrWithoutTracing(alone))
        XCTAssertEqual(alone.stdoutText, "first")
        let loaded = LoadedLibraries.heavy(in: alone)
        XCTAssertTrue(loaded.contains("libCofferCommands.so") && loaded.contains("libFoundationEssentials.so"), "\(loaded)")
        // Foundation's other parts bring ICU, about 10 ms to load (docs/performance.md).
        XCTAssertEqual(loaded.filter(Self.isFoundationBeyondEssentials), [], "the full program loads only FoundationEssentials")

        try startAgent()
        XCTAssertEqual(try coffer(["unlock", "--for", "60"]).status, 0)
        let json = try coffer(["get", "--json", "mail", "ada"], environment: LoadedLibraries.tracing)
        XCTAssertEqual(json.status, 0, LoadedLibraries.stderrWithoutTracing(json))
        XCTAssertTrue(LoadedLibraries.heavy(in: json).contains("libCofferCommands.so"))
        let fields = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        XCTAssertEqual(fields["secret"] as? String, Data("first".utf8).base64EncodedString())
    }

    /// A closed standard output is the full program's to report (exit 74), even when the agent
    /// holds the vault: the thin program opens no socket that could take descriptor 1.
    func testAClosedStandardOutputIsReportedAsBefore() throws {
        try initVaultWithItem()
        try startAgent()
        XCTAssertEqual(try coffer(["unlock", "--for", "60"]).status, 0)
        let closed = try shell(#""$COFFER" get mail ada >&-"#)
        XCTAssertEqual(closed.exitStatus, .outputFailed, closed.stderrText)
        XCTAssertEqual(closed.stderrText, "coffer: cannot write the output: standard output is closed\n")
    }

    /// The thin program's own exit statuses are the table's.
    func testTheThinProgramsStatusesAreTheTables() {
        XCTAssertEqual(ThinProgram.outputFailedStatus, ExitStatus.outputFailed.rawValue)
        XCTAssertEqual(ThinAgent.unavailableStatus, ExitStatus.unavailable.rawValue)
    }
}
