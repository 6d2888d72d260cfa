import CofferTestSupport
import Foundation
import XCTest

/// `coffer set --allow` and `--allow-pinned`: an item stored with its access list seeded, as
/// `security add-generic-password -T` does on macOS.
final class SetAllowTests: AccessCLITestCase {
    /// A new item gets coffer as its owner and the programs given on its list (one pinned to
    /// its SHA-256), each grant logged; setting it again with another --allow adds that program,
    /// keeps the others and the owner, and stores the new secret.
    func testAllowSeedsTheAccessList() throws {
        try initVault()
        let tool = try ownExecutable("tool")
        let stored = try coffer(["set", "mail", "ada", "--allow", "/usr/bin/true", "--allow-pinned", tool], stdin: Data("first".utf8))
        XCTAssertEqual(stored.status, 0, stored.stderrText)
        var shown = try show()
        XCTAssertEqual((shown["owner"] as? [String: Any])?["executable"] as? String, cofferPath)
        var allowed = try XCTUnwrap(shown["allowed"] as? [[String: Any]])
        XCTAssertEqual(Set(allowed.compactMap { $0["executable"] as? String }), ["/usr/bin/true", realPath(tool)])
        let pinned = try XCTUnwrap(allowed.first { $0["executable"] as? String == realPath(tool) })
        XCTAssertEqual(pinned["executablePinned"] as? Bool, true)
        XCTAssertEqual(pinned["executableSHA256"] as? String, try sha256(tool))
        XCTAssertEqual(try log().map { $0["action"] as? String }, ["grant", "grant"])

        let updated = try coffer(["set", "mail", "ada", "--allow", "/usr/bin/env", "--allow", "/usr/bin/true"], stdin: Data("second".utf8))
        XCTAssertEqual(updated.status, 0, updated.stderrText)
        shown = try show()
        allowed = try XCTUnwrap(shown["allowed"] as? [[String: Any]])
        XCTAssertEqual(Set(allowed.compactMap { $0["executable"] as? String }), ["/usr/bin/true", "/usr/bin/env", realPath(tool)])
        XCTAssertEqual((shown["owner"] as? [String: Any])?["executable"] as? String, cofferPath)
        XCTAssertEqual(try coffer(["get", "mail", "ada"]).stdoutText, "second")
        XCTAssertEqual(try log().count, 3, "only /usr/bin/env was new")
    }

    /// A relative --allow is a usage error before anything is read or written: no item.
    func testARelativeAllowIsAUsageErrorAndStoresNothing() throws {
        try initVault()
        assertFailure(
            try coffer(["set", "mail", "ada", "--allow", "bin/true"], stdin: Data("s".utf8)), status: .usage,
            message: "--allow must be an absolute path (the program's executable), not bin/true")
        assertFailure(
            try coffer(["set", "mail", "ada", "--allow-pinned", folder.file("nothing").path], stdin: Data("s".utf8)), status: .usage,
            message: "--allow-pinned \(folder.file("nothing").path): No such file or directory")
        assertFailure(try coffer(["get", "mail", "ada"]), status: .notFound, message: "item not found")
    }
}
