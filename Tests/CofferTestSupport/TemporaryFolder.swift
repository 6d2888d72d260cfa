import CofferBase
import Foundation
import XCTest

/// A private (0700) temporary folder named `coffer-test-XXXXXX`, made at first use and removed
/// when the test that made it ends (after its `tearDown`), or when its test class's suite ends
/// if it was made outside a test (a class `setUp`).
///
/// XCTest keeps every test case instance, and so every stored folder, alive until the process
/// ends, so removal cannot wait for `deinit`: ``TemporaryFolderSweeper`` removes the folders.
public final class TemporaryFolder: Sendable {
    private let made = Guarded<URL?>(nil)
    private let sweeper: TemporaryFolderSweeper

    /// A folder that `sweeper` removes (the one XCTest tells when tests end, by default).
    public init(sweeper: TemporaryFolderSweeper = .shared) {
        self.sweeper = sweeper
        if sweeper === TemporaryFolderSweeper.shared { sweeper.observe() }
    }

    /// The folder, made on first use.
    public var url: URL {
        made.withLock { made in
            if let made { return made }
            var template = Array(URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("coffer-test-XXXXXX").path.utf8CString)
            guard let path = mkdtemp(&template) else { fatalError("mkdtemp failed") }
            let url = URL(fileURLWithPath: String(cString: path))
            sweeper.track(url)
            made = url
            return url
        }
    }

    /// A path inside the folder.
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}

/// Removes the temporary folders: a test's when the test ends, the others when their suite ends.
public final class TemporaryFolderSweeper: NSObject, XCTestObservation, Sendable {
    /// The sweeper registered with XCTest.
    public static let shared = TemporaryFolderSweeper()

    /// A sweeper of its own, told of tests only by its caller (for testing the sweeper).
    public override init() {}

    private struct State {
        var observing = false
        var inTest = false
        var testFolders: [URL] = []
        var suiteFolders: [URL] = []
    }
    private let state = Guarded(State())

    /// Registers with XCTest once; the first folder is usually made when the test cases are
    /// built, before any test runs.
    func observe() {
        let first = state.withLock { state in
            defer { state.observing = true }
            return !state.observing
        }
        if first { XCTestObservationCenter.shared.addTestObserver(self) }
    }

    /// Removes `folder` when the current test ends, or when the suite ends outside a test.
    func track(_ folder: URL) {
        state.withLock { state in
            if state.inTest { state.testFolders.append(folder) } else { state.suiteFolders.append(folder) }
        }
    }

    public func testCaseWillStart(_ testCase: XCTestCase) {
        state.withLock { $0.inTest = true }
    }

    public func testCaseDidFinish(_ testCase: XCTestCase) {
        let folders = state.withLock { state in
            defer { state.inTest = false; state.testFolders = [] }
            return state.testFolders
        }
        Self.remove(folders)
    }

    public func testSuiteDidFinish(_ testSuite: XCTestSuite) {
        let folders = state.withLock { state in
            defer { state.suiteFolders = [] }
            return state.suiteFolders
        }
        Self.remove(folders)
    }

    private static func remove(_ folders: [URL]) {
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
    }
}
