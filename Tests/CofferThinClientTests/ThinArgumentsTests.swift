@testable import CofferThinClient
import XCTest

/// The thin programs read only the command lines they know, strictly; anything else is the full
/// program's to read (and to refuse with its usage message).
final class ThinArgumentsTests: XCTestCase {
    private func read(_ arguments: [String]) -> ThinArguments? {
        ThinArguments(arguments, valued: ["vault", "profile"], flags: ["internet"])
    }

    /// Both option forms, flags and positionals in any order.
    func testItReadsTheFormsItKnows() throws {
        let command = try XCTUnwrap(read(["--vault", "/v", "get", "--internet", "s", "a"]))
        XCTAssertEqual(command.valueNames, ["vault"])
        XCTAssertEqual(command.value("vault"), "/v")
        XCTAssertEqual(command.flags, ["internet"])
        XCTAssertEqual(command.positionals, ["get", "s", "a"])
        XCTAssertEqual(read(["token", "--profile=work"])?.value("profile"), "work")
        XCTAssertEqual(read(["get", "s", "", "--vault="])?.value("vault"), "")
        XCTAssertNil(read(["get", "s", "a"])?.value("vault"))
    }

    /// Unknown options, repeated ones, a missing value, a value that looks like an option, `--`,
    /// single-dash options and positionals starting with `-` are not read.
    func testItHandsOnWhatItDoesNotKnow() {
        for arguments in [
            ["get", "--json", "s", "a"], ["--vault", "/a", "--vault", "/b", "get", "s", "a"], ["get", "s", "a", "--vault"],
            ["get", "--vault", "--internet", "s", "a"], ["get", "--", "s", "a"], ["get", "-h"], ["get", "s", "-a"],
            ["get", "--internet", "--internet", "s", "a"], ["--help"], ["get", "--internet=yes", "s", "a"],
        ] {
            XCTAssertNil(read(arguments), "\(arguments)")
        }
    }

    /// A vault path is made absolute with `.` and `..` worked out, as the full program's
    /// standardized file URL is.
    func testAVaultPathIsMadeAbsolute() throws {
        XCTAssertEqual(ThinVaultPath.absolute("/a/./b/../c//d.vault"), "/a/c/d.vault")
        XCTAssertEqual(ThinVaultPath.absolute("/../x"), "/x")
        let folder = FileManager.default.currentDirectoryPath
        XCTAssertEqual(ThinVaultPath.absolute("v.vault"), (folder == "/" ? "" : folder) + "/v.vault")
    }
}
