import CofferBase
import CofferTestSupport
import Foundation
import XCTest
@testable import CofferAgent
import Coffer

/// Program files' digests: SHA-256 as another implementation computes it, each file hashed
/// once while it is unchanged (even asked for at once by several threads), again once changed.
final class FileDigestsTests: XCTestCase {
    let folder = TemporaryFolder()

    static func digest(_ digests: FileDigests, _ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return digests.digest(of: descriptor, info)
    }

    /// The digest is `sha256sum`'s; asking again reads nothing; a change (one byte appended)
    /// gives a new digest.
    func testTheDigestIsSHA256AndIsHashedOnceUntilTheFileChanges() throws {
        let path = folder.file("program").path
        try Data((0..<300_000).map { UInt8($0 % 251) }).write(to: URL(fileURLWithPath: path))
        let digests = FileDigests()
        XCTAssertEqual(Self.digest(digests, path), try sha256sum(path))
        XCTAssertEqual(Self.digest(digests, path), try sha256sum(path))
        XCTAssertEqual(digests.filesHashed, 1)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([0]))
        try handle.close()
        XCTAssertEqual(Self.digest(digests, path), try sha256sum(path))
        XCTAssertEqual(digests.filesHashed, 2)
    }

    /// Eight threads asking at once for a 32 MiB file's digest get the same one, and the file is
    /// read once.
    func testCallersAtOnceHashAFileOnce() throws {
        let path = folder.file("big").path
        try Data(count: 32 << 20).write(to: URL(fileURLWithPath: path))
        let digests = FileDigests()
        let results = Guarded<[[UInt8]?]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let result = Self.digest(digests, path)
            results.withLock { $0.append(result) }
        }
        let expected = try sha256sum(path)
        XCTAssertEqual(results.withLock { $0 }, Array(repeating: expected, count: 8))
        XCTAssertEqual(digests.filesHashed, 1)
    }

    /// A file over the size limit (sparse, so nothing is written), a FIFO and a folder have no
    /// digest, and nothing is read.
    func testFilesThatAreTooLargeOrNotRegularHaveNoDigest() throws {
        let large = folder.file("large").path
        XCTAssertTrue(FileManager.default.createFile(atPath: large, contents: nil))
        XCTAssertEqual(truncate(large, off_t(FileDigests.maxFileBytes + 1)), 0)
        let fifo = folder.file("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let digests = FileDigests()
        XCTAssertNil(Self.digest(digests, large))
        XCTAssertNil(Self.digest(digests, fifo))
        XCTAssertNil(Self.digest(digests, folder.url.path))
        XCTAssertEqual(digests.filesHashed, 0)
    }
}

/// `sha256sum`'s digest of the file at `path`: another implementation than libsodium's.
func sha256sum(_ path: String) throws -> [UInt8] {
    let output = try ChildProcess.run("sha256sum", [path])
    guard output.status == 0, let hex = output.stdoutText.split(separator: " ").first, let digest = Hex.decode(String(hex)) else {
        throw XCTSkip("sha256sum failed: \(output.stderrText)")
    }
    return digest
}
