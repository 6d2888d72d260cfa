import Foundation

/// A private (0700) temporary folder, deleted when the value is deinitialised.
public final class TemporaryFolder: @unchecked Sendable {
    public let url: URL

    public init() {
        var template = Array(URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("coffer-test-XXXXXX").path.utf8CString)
        guard let path = mkdtemp(&template) else { fatalError("mkdtemp failed") }
        url = URL(fileURLWithPath: String(cString: path))
    }

    /// A path inside the folder.
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
