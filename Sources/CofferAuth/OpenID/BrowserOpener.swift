import Foundation

/// How a browser login reaches the user's browser.
public enum BrowserOpener: Sendable {
    /// Runs `xdg-open URL`, the desktop's default browser.
    case xdgOpen
    /// Calls the app's closure with the URL, for example to open it another way.
    case custom(@Sendable (URL) async throws -> Void)
    /// Does nothing: the app shows the URL (``BrowserLogin/url``) to the user itself.
    case none

    /// Opens `url` as this opener says.
    public func open(_ url: URL) async throws(AuthError) {
        switch self {
        case .none:
            return
        case .custom(let open):
            do { try await open(url) } catch { throw .invalidRequest(reason: "the browser could not be opened: \(error)") }
        case .xdgOpen:
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["xdg-open", url.absoluteString]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch { throw .invalidRequest(reason: "xdg-open could not be run: \(error)") }
        }
    }
}
