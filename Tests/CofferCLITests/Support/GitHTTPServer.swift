import CofferTestSupport
import Foundation
import Glibc

/// git's smart HTTP (`git http-backend`, as CGI) behind lighttpd with HTTP Basic auth, on
/// 127.0.0.1 at a free port: a server no one on Coffer wrote, as a git user meets one.
///
/// It serves one bare repository, `repo.git`, to one user, for clone, fetch and push. The user's
/// password is in a plain lighttpd user file that lighttpd reads on every request, so
/// ``setPassword(_:)`` changes it at once. The server runs until ``stop()`` or the test ends.
final class GitHTTPServer {
    let folder: URL
    let user: String
    let port: Int
    private let process: ChildProcess

    /// The repository's URL: `http://127.0.0.1:PORT/git/repo.git`.
    var repositoryURL: String { "http://127.0.0.1:\(port)/git/repo.git" }

    /// Starts lighttpd for a new empty repository in `folder`. Throws ``MissingPrerequisite``
    /// when lighttpd or git's http-backend is missing.
    init(folder: URL, user: String, password: String) throws {
        guard let lighttpd = ["/usr/sbin/lighttpd", "/usr/bin/lighttpd"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw MissingPrerequisite.error("lighttpd is not installed (scripts/bootstrap.sh test installs it)")
        }
        try CredentialHelperTestCase.requireGit()
        let execPath = try ChildProcess.run("git", ["--exec-path"], timeout: .seconds(10)).stdoutText
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let backend = execPath + "/git-http-backend"
        guard FileManager.default.isExecutableFile(atPath: backend) else {
            throw MissingPrerequisite.error("git's http-backend is not at \(backend)")
        }
        self.folder = folder
        self.user = user
        let repository = folder.appendingPathComponent("repo.git").path
        for arguments in [["init", "--quiet", "--bare", repository], ["-C", repository, "config", "http.receivepack", "true"]] {
            let done = try ChildProcess.run("git", arguments, timeout: .seconds(20))
            guard done.status == 0 else { throw SetupFailure(message: "git \(arguments.joined(separator: " ")): \(done.stderrText)") }
        }
        try Data("\(user):\(password)\n".utf8).write(to: folder.appendingPathComponent("users"))

        // A port is free when chosen, and another process may take it before lighttpd binds
        // it: then lighttpd exits at once and another port is tried.
        var lastError = ""
        for _ in 0..<5 {
            let port = try Self.freePort()
            let configuration = folder.appendingPathComponent("lighttpd-\(port).conf")
            try Data(Self.configuration(folder: folder, port: port, backend: backend).utf8).write(to: configuration)
            let process = try ChildProcess.start(lighttpd, ["-D", "-f", configuration.path])
            if Self.waitUntilListening(port: port, process: process) {
                self.port = port
                self.process = process
                return
            }
            lastError = process.stop()?.stderrText ?? ""
        }
        throw SetupFailure(message: "lighttpd did not start: \(lastError)")
    }

    /// Replaces the user's password on the server.
    func setPassword(_ password: String) throws {
        try Data("\(user):\(password)\n".utf8).write(to: folder.appendingPathComponent("users"), options: .atomic)
    }

    func stop() {
        process.stop()
    }

    deinit {
        process.stop()
    }

    private static func configuration(folder: URL, port: Int, backend: String) -> String {
        """
        server.modules = ("mod_alias", "mod_auth", "mod_authn_file", "mod_cgi", "mod_setenv")
        server.bind = "127.0.0.1"
        server.port = \(port)
        server.document-root = "\(folder.path)"
        server.pid-file = "\(folder.path)/lighttpd-\(port).pid"
        alias.url = ("/git/" => "\(backend)/")
        cgi.assign = ("" => "")
        setenv.set-environment = ("GIT_PROJECT_ROOT" => "\(folder.path)", "GIT_HTTP_EXPORT_ALL" => "1")
        auth.backend = "plain"
        auth.backend.plain.userfile = "\(folder.path)/users"
        auth.require = ("/git/" => ("method" => "basic", "realm" => "coffer test", "require" => "valid-user"))
        """
    }

    /// A port nothing listens on now, from the kernel (a bind to port 0 on 127.0.0.1).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SetupFailure(message: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw SetupFailure(message: "bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on the port within 10 s, while `process` runs.
    private static func waitUntilListening(port: Int, process: ChildProcess) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if hasExited(process.pid) { return false }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(fd)
            if connected { return true }
            usleep(20_000)
        }
        return false
    }

    /// Whether the child `pid` has ended (a zombie, not yet reaped: ``ChildProcess`` reaps it).
    private static func hasExited(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    struct SetupFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
