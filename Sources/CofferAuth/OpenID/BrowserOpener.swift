import CofferProcess
import Foundation

/// How a browser login reaches the user's browser.
public enum BrowserOpener: Sendable {
    /// The user's browser: the first command of `$BROWSER` (`%s` stands for what to open), else
    /// `xdg-open`. It is given a page only the user can read (mode 0600, in the run-time folder) that sends the
    /// browser on to the login, never the URL itself: a command line is readable by every local
    /// user, and the URL carries the login's `state`. The browser runs in a process group of its
    /// own, with `/dev/null` for its standard streams and no other descriptor, and the
    /// environment without Coffer's own `COFFER_*` variables (such as `COFFER_PASSPHRASE`).
    case defaultBrowser
    /// Calls the app's closure with the URL, for example to open it another way.
    case custom(@Sendable (URL) async throws -> Void)
    /// Does nothing: the app shows the URL (``BrowserLogin/url``) to the user itself.
    case none

    /// Opens `url` as this opener says; returns the page to remove once the login is over.
    func open(_ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) async throws(AuthError) -> RedirectPage? {
        switch self {
        case .none:
            return nil
        case .custom(let open):
            do { try await open(url) } catch { throw .invalidRequest(reason: "the browser could not be opened: \(error)") }
            return nil
        case .defaultBrowser:
            let page = try RedirectPage.write(leadingTo: url)
            let arguments = Self.command(opening: page.path, browser: environment["BROWSER"])
            let browser = ChildCommand(executable: "/usr/bin/env", arguments: arguments, environment: environment.filter { !$0.key.hasPrefix("COFFER_") })
            do throws(ChildSpawnFailure) {
                let child = try browser.spawn(descriptors: [0: .nullDevice, 1: .nullDevice, 2: .nullDevice])
                // Reaped whenever it exits; a browser may outlive the login.
                Thread.detachNewThread { _ = child.wait(until: nil) }
            } catch {
                page.remove()
                throw .invalidRequest(reason: "\(arguments.first ?? "xdg-open") could not be run: \(error)")
            }
            return page
        }
    }

    /// The command that opens `path`: `$BROWSER`'s first entry (entries are separated by `:`,
    /// words by spaces; `%s` is replaced by `path`, which is appended when there is none), else
    /// `xdg-open path`.
    static func command(opening path: String, browser: String?) -> [String] {
        let entry = (browser ?? "").split(separator: ":").first { !$0.allSatisfy(\.isWhitespace) }
        guard let words = entry?.split(separator: " ").map(String.init), !words.isEmpty else { return ["xdg-open", path] }
        return words.contains { $0.contains("%s") } ? words.map { $0.replacingOccurrences(of: "%s", with: path) } : words + [path]
    }
}
