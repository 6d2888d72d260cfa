import Coffer
import Foundation
import Glibc

/// A page that sends the browser on to a login URL, in a file only the user can read (mode
/// 0600, in the user's ``RuntimeFolder``), so that the URL, and the `state` in it, never
/// appears on a command line (`/proc/PID/cmdline` is readable by every local user).
final class RedirectPage: Sendable {
    /// The file's path.
    let path: String

    private init(path: String) {
        self.path = path
    }

    /// Writes a new page leading to `url`, in `folder` (default: the user's run-time folder).
    static func write(leadingTo url: URL, in folder: URL? = nil) throws(AuthError) -> RedirectPage {
        let base: URL
        if let folder {
            base = folder
        } else {
            do throws(CofferError) { base = try RuntimeFolder.url() } catch { throw .storage(error) }
        }
        let path = base.path + "/login-\(Base64URL.random(bytes: 12)).html"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .storage(.storageUnavailable(reason: "cannot create \(path): \(String(cString: strerror(errno)))"))
        }
        defer { close(descriptor) }
        let bytes = Array(html(leadingTo: url).utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            unlink(path)
            throw .storage(.storageUnavailable(reason: "cannot write \(path)"))
        }
        return RedirectPage(path: path)
    }

    /// Removes the page.
    func remove() {
        unlink(path)
    }

    /// The page: an immediate refresh to `url`, a link for browsers that do not follow it, and
    /// no referrer.
    static func html(leadingTo url: URL) -> String {
        let target = escaped(url.absoluteString)
        return """
            <!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">\
            <meta http-equiv="refresh" content="0;url=\(target)"><title>Logging in</title></head>\
            <body><p><a href="\(target)">Continue to the login page</a></p></body></html>

            """
    }

    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
