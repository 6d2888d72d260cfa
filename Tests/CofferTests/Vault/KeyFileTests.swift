import CofferTestSupport
import Foundation
import XCTest
@testable import Coffer

/// Key files: created whole or not at all, and never over something else.
final class KeyFileTests: XCTestCase {
    let folder = TemporaryFolder()

    /// The key appears at its path already 32 bytes long and 0600, and nothing else is left in
    /// the folder (it was written under a temporary name and linked into place).
    func testAKeyFileAppearsWholeAndLeavesNothingBehind() throws {
        let url = folder.file("app.key")
        try KeyFile.generate(at: url)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        XCTAssertEqual(attributes[.size] as? Int, 32)
        XCTAssertEqual(attributes[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path), ["app.key"])
        XCTAssertEqual(try KeyFile.read(at: url).count, 32)
    }

    func testNothingIsWrittenOverAnExistingFileOrFolder() throws {
        let file = folder.file("taken.key")
        try Data("keep".utf8).write(to: file)
        XCTAssertThrows(.invalidArgument(reason: "a file already exists at \(file.path)"), try KeyFile.generate(at: file))
        XCTAssertEqual(try Data(contentsOf: file), Data("keep".utf8))
        let fifo = folder.file("fifo.key")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        XCTAssertThrows(.invalidArgument(reason: "\(fifo.path) is not a regular file"), try KeyFile.generate(at: fifo))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted(), ["fifo.key", "taken.key"])
    }

    /// `init` over a FIFO or a folder said "a vault already exists" (found by `make torture`).
    func testCreatingAVaultOverAFIFOOrAFolderNamesWhatIsThere() throws {
        let fifo = folder.file("fifo.vault")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        XCTAssertThrows(.invalidArgument(reason: "\(fifo.path) is not a regular file"), try folder.makeVault("fifo.vault"))
        let inner = folder.file("folder.vault")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
        XCTAssertThrows(.invalidArgument(reason: "\(inner.path) is a folder"), try folder.makeVault("folder.vault"))
    }
}
