import CofferTestSupport
import Foundation
import Glibc
import XCTest

/// Tests that run a built program as another uid (setpriv) get a path that uid can run, wherever
/// the tree was cloned: a clone in a private folder (`mktemp -d` makes it 0700) failed 24 tests
/// with "Permission denied" at exec.
final class OtherUserExecutableTests: XCTestCase {
    /// A program in a folder only its owner may enter is not reachable by others.
    func testAProgramInAPrivateFolderIsNotReachableByOthers() throws {
        let folder = TemporaryFolder()
        let program = folder.file("program")
        try Data("#!/bin/sh\n".utf8).write(to: program)
        chmod(program.path, 0o755)
        chmod(folder.url.path, 0o755)
        XCTAssertTrue(BuiltProducts.isReachableByOthers(program.path))
        chmod(folder.url.path, 0o700)
        XCTAssertFalse(BuiltProducts.isReachableByOthers(program.path))
    }

    /// Another uid runs the path it is given: coffer --version exits 0 as uid 65534.
    func testAnotherUserRunsTheGivenPath() throws {
        let coffer = try BuiltProducts.executableForOtherUsers("coffer")
        XCTAssertTrue(BuiltProducts.isReachableByOthers(coffer.path), coffer.path)
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("running a program as uid 65534 needs root and setpriv")
        }
        let run = try ChildProcess.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", coffer.path, "--version"])
        XCTAssertEqual(run.status, 0, run.stderrText)
    }

    /// The programs `coffer` runs from its own folder are beside the path another user is given:
    /// in a private clone, `coffer agent start` run as uid 65534 found no `coffer-agent` beside
    /// the shared `coffer` (AgentCommandTests and PAMModuleTests failed there). As that uid, each
    /// companion program runs (`--version`); the library is reachable too (the first test runs
    /// `coffer --version`, which loads it).
    func testTheProgramsCofferRunsAreBesideIt() throws {
        let coffer = try BuiltProducts.executableForOtherUsers("coffer")
        for companion in try XCTUnwrap(BuiltProducts.companions["coffer"]) {
            let beside = coffer.deletingLastPathComponent().appendingPathComponent(companion)
            XCTAssertTrue(BuiltProducts.isReachableByOthers(beside.path), beside.path)
            guard !companion.hasSuffix(".so"), geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { continue }
            let run = try ChildProcess.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", beside.path, "--version"])
            XCTAssertEqual(run.status, 0, "\(companion): \(run.stderrText)")
        }
    }
}
